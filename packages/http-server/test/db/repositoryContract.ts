import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import {
  DealRepo,
  DomainEvent,
  EventOutbox,
  MessageRepo,
  OtpRepo,
  RatingRepo,
  type Report,
  ReportRepo,
  RequestRepo,
  SellerProfileRepo,
  Transactor,
  UserRepo
} from "@talab/core"
import { Duration, Effect, Layer, Option } from "effect"
import { repositoryPortTests } from "../../../core/test/ports/repositoryContract.js"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { defectOf, repositoriesOver, sqlRepositoryProbe, violatedConstraint } from "./support/databases.js"
import {
  aMessage,
  aPhoneNumber,
  aRating,
  aRequest,
  aSellerProfile,
  at,
  aUser,
  seedDeal,
  seedOffer
} from "./support/fixtures.js"

const tables = [
  "buy_requests",
  "conversations",
  "deals",
  "device_tokens",
  "messages",
  "notifications",
  "offers",
  "otp_challenges",
  "outbox_events",
  "ratings",
  "reports",
  "seller_profiles",
  "sessions",
  "users"
]

/**
 * What the SQL adapters of the repository ports must do, run against one database that is shared by the whole
 * suite (each test makes rows of its own): everything a port promises (core's contract, which the in-memory
 * adapters pass too), then what only the SQL schema adds (its migrations and its own rules).
 */
export const repositoryContract = <E>(
  name: string,
  database: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, E>
) =>
  layer(Layer.provideMerge(sqlRepositoryProbe, repositoriesOver(database)), {
    timeout: Duration.minutes(2),
    excludeTestServices: true
  })(name, (it) => {
    repositoryPortTests(it)

    it.effect("migrations create every table on an empty database and a second run changes nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const present = yield* sql<{ tableName: string }>`
          SELECT table_name AS "tableName" FROM information_schema.tables WHERE table_schema = 'public'`
        expect(present.map((t) => t.tableName)).toEqual(expect.arrayContaining(tables))

        const user = yield* (yield* UserRepo).insertOrGet(aUser())
        yield* Effect.scoped(Layer.build(MigrationsLayer))

        const applied = yield* sql<{ migrationId: number }>`
          SELECT migration_id AS "migrationId" FROM effect_sql_migrations ORDER BY migration_id`
        expect(applied.map((m) => m.migrationId)).toEqual(
          Object.keys(migrations).map((key) => Number.parseInt(key, 10))
        )
        expect(yield* (yield* UserRepo).findById(user.id)).toEqual(Option.some(user))
      })
    )

    it.effect(
      "users: an unknown language dies before SQL and the schema refuses it too; phone numbers must be E.164",
      () =>
        Effect.gen(function* () {
          const users = yield* UserRepo
          const sql = yield* SqlClient.SqlClient
          const french = aUser({ language: "fr" as "ar" })
          expect(yield* defectOf(users.insertOrGet(french))).toMatchObject({ _tag: "ParseError" })
          const rawInsert = sql`INSERT INTO users (id, phone_number, language) VALUES (${french.id}, ${french.phoneNumber}, 'fr')`
          expect(yield* violatedConstraint(Effect.orDie(rawInsert))).toBe("users_language_known")
          expect(yield* violatedConstraint(users.insertOrGet(aUser({ phoneNumber: "0501234567" })))).toBe(
            "users_phone_number_e164"
          )
        })
    )

    it.effect("otp: the schema refuses a fourth attempt", () =>
      Effect.gen(function* () {
        const otps = yield* OtpRepo
        const issued = {
          phoneNumber: aPhoneNumber(),
          codeHash: "hash-1",
          expiresAt: at("2025-02-01T00:10:00.000Z"),
          attempts: 0,
          consumedAt: null
        }
        yield* otps.replace(issued)
        expect(yield* violatedConstraint(otps.save({ ...issued, attempts: 4 }))).toBe("otp_challenges_attempts_range")
      })
    )

    it.effect("seller profiles: the schema keeps one profile per user", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const user = yield* (yield* UserRepo).insertOrGet(aUser())
        yield* (yield* SellerProfileRepo).insertIfAbsent(aSellerProfile(user.id))
        const second = sql`
          INSERT INTO seller_profiles (id, user_id, business_name, location_district)
          VALUES (${randomUUID()}, ${user.id}, 'Second', 'Olaya')`
        expect(yield* violatedConstraint(Effect.orDie(second))).toBe("seller_profiles_user_id_key")
      })
    )

    it.effect("requests: the schema refuses budget_max below budget_min and budgets outside (0, 1e9]", () =>
      Effect.gen(function* () {
        const requests = yield* RequestRepo
        const buyer = yield* (yield* UserRepo).insertOrGet(aUser())
        expect(
          yield* violatedConstraint(requests.insert(aRequest(buyer.id, { budgetMin: 500, budgetMax: 499.99 })))
        ).toBe("buy_requests_budget_order")
        expect(yield* violatedConstraint(requests.insert(aRequest(buyer.id, { budgetMin: 0 })))).toBe(
          "buy_requests_budget_min_range"
        )
        expect(yield* violatedConstraint(requests.insert(aRequest(buyer.id, { budgetMax: 1_000_000_000.01 })))).toBe(
          "buy_requests_budget_max_range"
        )
        expect(yield* violatedConstraint(requests.insert(aRequest(buyer.id, { offerCount: -1 })))).toBe(
          "buy_requests_offer_count_positive"
        )
      })
    )

    it.effect("requests: insertAll stores none of its requests when the schema refuses one", () =>
      Effect.gen(function* () {
        const requests = yield* RequestRepo
        const buyer = yield* (yield* UserRepo).insertOrGet(aUser())
        const fine = aRequest(buyer.id)
        expect(
          yield* violatedConstraint(
            requests.insertAll([fine, aRequest(buyer.id, { budgetMin: 500, budgetMax: 499.99 })])
          )
        ).toBe("buy_requests_budget_order")
        expect(yield* requests.findById(fine.id)).toEqual(Option.none())
      })
    )

    it.effect("offers: the schema refuses a second pending offer of a seller on a request", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { offer } = yield* seedOffer
        const second = sql`
          INSERT INTO offers (id, request_id, seller_id, price, availability, status)
          VALUES (${randomUUID()}, ${offer.requestId}, ${offer.sellerId}, 100, 'today', 'pending')`
        expect(yield* violatedConstraint(Effect.orDie(second))).toBe("offers_one_pending_per_seller")
      })
    )

    it.effect("deals: no completed deal without its time", () =>
      Effect.gen(function* () {
        const deals = yield* DealRepo
        const { deal } = yield* seedDeal()
        const completedWithoutTime = { ...deal, status: "completed" as const, completedAt: null }
        expect(yield* violatedConstraint(deals.update(completedWithoutTime))).toBe("deals_completed_at_when_completed")
      })
    )

    it.effect("ratings: the schema refuses a rating outside 1 to 5", () =>
      Effect.gen(function* () {
        const ratings = yield* RatingRepo
        const { deal } = yield* seedDeal({ status: "completed", completedAt: at("2025-01-06T00:00:00.000Z") })
        const rating = (value: number) => aRating(deal, value)
        expect(yield* violatedConstraint(ratings.insert(rating(6)))).toBe("ratings_rating_range")
        expect(yield* violatedConstraint(ratings.insert(rating(0)))).toBe("ratings_rating_range")
        expect(yield* ratings.existsForDeal(deal.id)).toBe(false)
      })
    )

    it.effect("reports: nobody reports themself", () =>
      Effect.gen(function* () {
        const { buyer } = yield* seedDeal()
        const report: Report = {
          id: randomUUID(),
          reporterId: buyer.id,
          reportedUserId: buyer.id,
          dealId: null,
          reason: "no_show",
          description: null,
          status: "pending",
          action: null,
          resolutionNotes: null,
          resolvedAt: null,
          createdAt: at("2025-02-01T00:00:00.000Z")
        }
        expect(yield* violatedConstraint((yield* ReportRepo).insertUnlessPending(report))).toBe("reports_not_self")
      })
    )

    // Empty is allowed (photos alone: their text is ""); that a message has text or photos is core's rule.
    it.effect("messages: the schema refuses a text over 4,000 characters", () =>
      Effect.gen(function* () {
        const { buyer, conversation } = yield* seedOffer
        expect(
          yield* violatedConstraint(
            (yield* MessageRepo).insertOnce(aMessage(conversation, buyer.id, { messageText: "x".repeat(4001) }))
          )
        ).toBe("messages_text_length")
      })
    )

    it.effect("outbox: the notifications an event owes are written with it, and rolled back with it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* EventOutbox
        const { transaction } = yield* Transactor
        const buyer = yield* (yield* UserRepo).insertOrGet(aUser())
        const offerCreated = (offerId: string) =>
          DomainEvent.OfferCreated({
            offerId,
            requestId: randomUUID(),
            sellerId: randomUUID(),
            buyerId: buyer.id,
            conversationId: randomUUID()
          })
        const kept = offerCreated(randomUUID())
        yield* outbox.append([kept], at("2025-02-01T00:00:00.000Z"))
        const refused = yield* transaction(
          Effect.zipRight(
            outbox.append([offerCreated(randomUUID())], at("2025-02-01T00:00:00.000Z")),
            Effect.fail("no")
          )
        ).pipe(Effect.flip)
        expect(refused).toBe("no")

        const events = yield* sql<{ offerId: string }>`
          SELECT payload ->> 'offerId' AS "offerId" FROM outbox_events WHERE payload ->> 'buyerId' = ${buyer.id}`
        expect(events).toEqual([{ offerId: kept.offerId }])
        const notifications = yield* sql<{ type: string; status: string; payload: unknown; nextAttemptAt: Date }>`
          SELECT type, status, payload, next_attempt_at AS "nextAttemptAt" FROM notifications WHERE user_id = ${buyer.id}`
        expect(notifications).toEqual([
          {
            type: "offer_created",
            status: "pending",
            payload: {
              data: { request_id: kept.requestId, offer_id: kept.offerId, conversation_id: kept.conversationId }
            },
            nextAttemptAt: at("2025-02-01T00:00:00.000Z")
          }
        ])
      })
    )
  })
