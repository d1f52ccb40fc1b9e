import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import type { AccountExport } from "@talab/contract"
import {
  AlertRule,
  BuyRequest,
  Conversation,
  Deal,
  Offer,
  RateLimited,
  RateLimiter,
  Rating,
  Report,
  SellerProfileRepo,
  snakeCaseKeys,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SessionRow } from "../auth/SqlSessionRepo.js"
import { MessageRow } from "../chat/SqlMessageRepo.js"
import { AppConfig } from "../config/AppConfig.js"
import { columnsAs, fieldNames } from "../db/Rows.js"
import { DeviceTokenRow } from "./SqlDeviceTokenRepo.js"

const HOUR_MS = 60 * 60 * 1000

/** A push token as the export shows it: enough to recognise a device, not to send to it. */
const maskedPushToken = (token: string) =>
  token.length <= 8 ? "*".repeat(token.length) : `${token.slice(0, 4)}…${token.slice(-4)}`

const ruleColumns = columnsAs("seller_alert_rules", fieldNames(AlertRule))

/** The export of one's own data (GET /users/me/export): every row that is the caller's, and no one else's. */
export class AccountExportQueries extends Effect.Service<AccountExportQueries>()("Users/AccountExport", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const profiles = yield* SellerProfileRepo
    const limiter = yield* RateLimiter
    const config = yield* AppConfig

    const rowsOf = <A, I>(Result: Schema.Schema<A, I>, query: (userId: string) => Statement.Statement<object>) =>
      SqlSchema.findAll({ Request: Schema.String, Result, execute: query })

    const sessions = rowsOf(
      SessionRow,
      (id) => sql`SELECT * FROM sessions WHERE user_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const deviceTokens = rowsOf(
      DeviceTokenRow,
      (id) => sql`SELECT * FROM device_tokens WHERE user_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const requests = rowsOf(
      snakeCaseKeys(BuyRequest.fields),
      (id) => sql`SELECT * FROM buy_requests WHERE buyer_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const offers = rowsOf(
      snakeCaseKeys(Offer.fields),
      (id) => sql`SELECT * FROM offers WHERE seller_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const deals = rowsOf(
      snakeCaseKeys(Deal.fields),
      (id) => sql`
        SELECT * FROM deals WHERE buyer_id = ${id} OR seller_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const conversations = rowsOf(
      snakeCaseKeys(Conversation.fields),
      (id) => sql`
        SELECT * FROM conversations WHERE buyer_id = ${id} OR seller_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    // Only what the caller wrote: the other party's messages are theirs.
    const messages = rowsOf(
      MessageRow,
      (id) => sql`SELECT * FROM messages WHERE sender_id = ${id} ORDER BY created_at, conversation_id, seq`
    )
    const ratingsGiven = rowsOf(
      snakeCaseKeys(Rating.fields),
      (id) => sql`SELECT * FROM ratings WHERE buyer_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const ratingsReceived = rowsOf(
      snakeCaseKeys(Rating.fields),
      (id) => sql`SELECT * FROM ratings WHERE seller_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    // The reports the caller made; reports about them, and who made those, are not theirs to see.
    const reportsMade = rowsOf(
      snakeCaseKeys(Report.fields),
      (id) => sql`SELECT * FROM reports WHERE reporter_id = ${id} ORDER BY created_at DESC, id DESC`
    )
    const alertRules = rowsOf(
      AlertRule,
      (id) => sql`
        SELECT ${sql.literal(ruleColumns)} FROM seller_alert_rules WHERE seller_user_id = ${id}
        ORDER BY created_at DESC, id DESC`
    )

    /** A few exports per user an hour (RATE_LIMIT_EXPORTS_PER_HOUR): each reads everything the user has. */
    const admit = (user: User) =>
      Effect.gen(function* () {
        const decision = yield* limiter.consume({
          key: `export:${user.id}`,
          limit: config.exportsPerHour,
          windowMs: HOUR_MS
        })
        if (!decision.allowed)
          return yield* Effect.fail(new RateLimited({ retryAfterMs: decision.retryAfterMs, limit: decision.limit }))
      })

    /** Everything stored about `user`, as of now. */
    const exportOf = (user: User): Effect.Effect<AccountExport, RateLimited> =>
      Effect.gen(function* () {
        yield* admit(user)
        const id = user.id
        const data = yield* Effect.all({
          sessions: sessions(id),
          deviceTokens: deviceTokens(id),
          requests: requests(id),
          offers: offers(id),
          deals: deals(id),
          conversations: conversations(id),
          messages: messages(id),
          ratingsGiven: ratingsGiven(id),
          ratingsReceived: ratingsReceived(id),
          reportsMade: reportsMade(id),
          alertRules: alertRules(id)
        }).pipe(Effect.orDie)
        return {
          exportedAt: new Date(yield* Clock.currentTimeMillis),
          profile: user,
          sellerProfile: Option.getOrNull(yield* profiles.findByUserId(id)),
          ...data,
          deviceTokens: data.deviceTokens.map((token) => ({ ...token, pushToken: maskedPushToken(token.pushToken) })),
          // The photos of requests and offers are not stored yet; their URLs will be listed here.
          images: []
        }
      })

    return { exportOf } as const
  })
}) {}
