import { SqlClient, SqlSchema } from "@effect/sql"
import {
  AlertRule,
  type AlertRuleInput,
  AlertRuleLimitReached,
  Ids,
  MAX_ALERT_RULES,
  NotFound,
  type QuietHoursInput,
  requireApprovedSeller,
  SellerProfileRepo,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames } from "../db/Rows.js"

/** How a city is compared: trimmed, lowercased (a request's "Riyadh " matches a rule's "riyadh"). */
export const cityKey = (city: string) => city.trim().toLowerCase()

// Read under the rule's own field names and decoded with the entity itself (numeric as numbers: db/PgTypes.ts).
const ruleColumns = columnsAs("seller_alert_rules", fieldNames(AlertRule))

const unique = <A>(items: ReadonlyArray<A>) => [...new Set(items)]

/** A seller's alert rules and quiet hours; every call requires an approved seller profile. */
export class SellerAlertsService extends Effect.Service<SellerAlertsService>()("Alerts/Service", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const profiles = yield* SellerProfileRepo
    const transactor = yield* Transactor
    const ids = yield* Ids
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    // Arrays travel as JSON text, read the same way by PostgreSQL and PGlite.
    const textArray = (items: ReadonlyArray<string>) =>
      sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(items)}::jsonb))`

    const listOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: AlertRule,
      execute: (sellerUserId) => sql`
        SELECT ${sql.literal(ruleColumns)} FROM seller_alert_rules WHERE seller_user_id = ${sellerUserId}
        ORDER BY created_at DESC, id DESC`
    })

    const approvedSeller = (user: User) => Effect.flatMap(profiles.findByUserId(user.id), requireApprovedSeller)

    const listRules = (user: User) =>
      Effect.gen(function* () {
        yield* approvedSeller(user)
        return yield* listOf(user.id).pipe(Effect.orDie)
      })

    /**
     * Adds a rule unless the seller has {@link MAX_ALERT_RULES}. The profile row is locked first, so two racing
     * creates are counted one after the other and a suspension waits for the insert.
     */
    const createRule = (user: User, input: AlertRuleInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          yield* Effect.flatMap(profiles.lockByUserId(user.id), requireApprovedSeller)
          const [{ n }] = (yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM seller_alert_rules WHERE seller_user_id = ${user.id}`.pipe(
            Effect.orDie
          )) as unknown as [{ n: number }]
          if (n >= MAX_ALERT_RULES) return yield* Effect.fail(new AlertRuleLimitReached({ max: MAX_ALERT_RULES }))
          const cities = unique(input.cities)
          const rule: AlertRule = {
            id: yield* ids.next,
            categories: unique(input.categories),
            cities,
            priceMin: input.priceMin ?? null,
            priceMax: input.priceMax ?? null,
            keywords: unique(input.keywords ?? []),
            createdAt: yield* now
          }
          yield* sql`
            INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, price_min, price_max,
                                            keywords, created_at)
            VALUES (${rule.id}, ${user.id}, ${textArray(rule.categories)}, ${textArray(cities)},
                    ${textArray(unique(cities.map(cityKey)))}, ${rule.priceMin}, ${rule.priceMax},
                    ${textArray(rule.keywords)}, ${rule.createdAt})`.pipe(Effect.orDie)
          return rule
        })
      )

    /** Deletes one of the caller's rules; somebody else's id, or an unknown one, is 404. */
    const deleteRule = (user: User, id: string) =>
      Effect.gen(function* () {
        yield* approvedSeller(user)
        const deleted =
          yield* sql`DELETE FROM seller_alert_rules WHERE id = ${id} AND seller_user_id = ${user.id} RETURNING id`.pipe(
            Effect.orDie
          )
        if (deleted.length === 0) return yield* Effect.fail(new NotFound({ resource: "alert_rule" }))
      })

    const getSettings = (user: User) =>
      Effect.gen(function* () {
        yield* approvedSeller(user)
        const rows = yield* sql<{ quietFrom: string; quietTo: string; timeZone: string }>`
          SELECT to_char(quiet_from, 'HH24:MI') AS "quietFrom", to_char(quiet_to, 'HH24:MI') AS "quietTo",
                 time_zone AS "timeZone"
          FROM seller_alert_settings WHERE seller_user_id = ${user.id}`.pipe(Effect.orDie)
        const row = rows[0]
        return row === undefined
          ? { quietFrom: null, quietTo: null, timeZone: null }
          : { quietFrom: row.quietFrom, quietTo: row.quietTo, timeZone: row.timeZone }
      })

    /** Sets the quiet hours (all three given) or removes them (all three null). */
    const putSettings = (user: User, settings: QuietHoursInput) =>
      Effect.gen(function* () {
        yield* approvedSeller(user)
        const { quietFrom, quietTo, timeZone } = settings
        if (quietFrom === null || quietTo === null || timeZone === null) {
          yield* sql`DELETE FROM seller_alert_settings WHERE seller_user_id = ${user.id}`.pipe(Effect.orDie)
          return { quietFrom: null, quietTo: null, timeZone: null }
        }
        yield* sql`
          INSERT INTO seller_alert_settings (seller_user_id, quiet_from, quiet_to, time_zone, updated_at)
          VALUES (${user.id}, ${quietFrom}, ${quietTo}, ${timeZone}, ${yield* now})
          ON CONFLICT (seller_user_id) DO UPDATE
          SET quiet_from = EXCLUDED.quiet_from, quiet_to = EXCLUDED.quiet_to, time_zone = EXCLUDED.time_zone,
              updated_at = EXCLUDED.updated_at`.pipe(Effect.orDie)
        return { quietFrom, quietTo, timeZone }
      })

    return { listRules, createRule, deleteRule, getSettings, putSettings } as const
  })
}) {}
