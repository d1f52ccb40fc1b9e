import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { type NotificationData, type OwedNotification, PushType, snakeCaseKeys } from "@talab/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Timestamp } from "../db/Rows.js"

/** The key each id of a push's `data` has in the stored payload and on the device (the apps read snake_case). */
const wireKeyOf = {
  requestId: "request_id",
  offerId: "offer_id",
  dealId: "deal_id",
  conversationId: "conversation_id",
  counterId: "counter_id",
  matchCount: "match_count",
  sellerProfileId: "seller_profile_id"
} as const satisfies Record<keyof NotificationData, string>

/** A push's `data` as it is stored and sent: the same ids under the wire's keys. */
const wireData = (data: NotificationData): Readonly<Record<string, string>> =>
  Object.fromEntries(
    (Object.keys(data) as Array<keyof NotificationData>).flatMap((key) => {
      const value = data[key]
      return value === undefined ? [] : [[wireKeyOf[key], value]]
    })
  )

/** The `notifications` rows for notifications owed at `at`: pending, due at once. */
export const pendingNotificationRows = (owed: ReadonlyArray<OwedNotification>, at: Date) =>
  owed.map((notification) => ({
    user_id: notification.recipientId,
    type: notification.type,
    payload: {
      data: wireData(notification.data),
      ...(notification.messageId === undefined ? {} : { message_id: notification.messageId })
    },
    status: "pending",
    next_attempt_at: at,
    created_at: at,
    collapse_key: notification.collapseKey ?? null
  }))

const Payload = Schema.Struct({
  data: Schema.Record({ key: Schema.String, value: Schema.String }),
  message_id: Schema.optionalWith(Schema.String, { exact: true })
})

/** What one device token made of a notification, once it is settled. */
export const DeviceOutcome = Schema.Literal("delivered", "unregistered", "failed")
export type DeviceOutcome = typeof DeviceOutcome.Type

/** Settled device tokens of a notification and what each made of it. */
type DeviceOutcomes = Readonly<Record<string, DeviceOutcome>>

/** A notification this dispatcher holds until its lease ends; `attempts` counts this claim. */
export const ClaimedNotification = Schema.Struct({
  id: Schema.UUID,
  userId: Schema.UUID,
  type: PushType,
  data: Schema.Record({ key: Schema.String, value: Schema.String }),
  messageId: Schema.UndefinedOr(Schema.String),
  attempts: Schema.Int,
  /** The devices earlier attempts settled: not pushed to again. */
  deviceOutcomes: Schema.Record({ key: Schema.String, value: DeviceOutcome }),
  createdAt: Timestamp
})
export interface ClaimedNotification extends Schema.Schema.Type<typeof ClaimedNotification> {}

/** A claimed row: the notification under its column names, its data and message id in the JSON `payload`. */
const ClaimedRow = Schema.transform(
  Schema.Struct({ ...snakeCaseKeys(ClaimedNotification.omit("data", "messageId").fields).fields, payload: Payload }),
  Schema.typeSchema(ClaimedNotification),
  {
    strict: true,
    decode: ({ payload, ...row }) => ({ ...row, data: payload.data, messageId: payload.message_id }),
    encode: ({ data, messageId, ...row }) => ({
      ...row,
      payload: messageId === undefined ? { data } : { data, message_id: messageId }
    })
  }
)

/** How one attempt at a notification ended. */
export type Settlement = Data.TaggedEnum<{
  /** Nothing left to do: delivered to every device that could take it (or there were none). */
  Sent: { readonly deviceOutcomes: DeviceOutcomes }
  /** Some devices failed transiently: try them again at `retryAt`. */
  Retry: { readonly deviceOutcomes: DeviceOutcomes; readonly retryAt: Date; readonly error: string }
  /** Reached no device, and never will: refused for good or out of attempts. */
  Failed: { readonly deviceOutcomes: DeviceOutcomes; readonly error: string }
}>
export const Settlement = Data.taggedEnum<Settlement>()

/** The `notifications` table as a work queue shared by every instance of the server. */
export class NotificationStore extends Effect.Service<NotificationStore>()("Notifications/Store", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // One statement, so one short transaction: the rows are locked only while it runs, and SKIP LOCKED lets
    // another instance claiming at the same moment take different rows instead of waiting for these.
    const claim = SqlSchema.findAll({
      Request: Schema.Struct({ now: Timestamp, leaseUntil: Timestamp, limit: Schema.Number }),
      Result: ClaimedRow,
      execute: ({ leaseUntil, limit, now }) => sql`
        WITH due AS (
          SELECT id FROM notifications
          WHERE status = 'pending' AND next_attempt_at <= ${now}
          ORDER BY next_attempt_at, created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE notifications AS n
        SET next_attempt_at = ${leaseUntil}, attempts = n.attempts + 1
        FROM due WHERE n.id = due.id
        RETURNING n.id, n.user_id, n.type, n.payload, n.attempts, n.device_outcomes, n.created_at`
    })

    /**
     * Claims up to `limit` due notifications until `leaseUntil`: other dispatchers skip them until then, so a
     * claim whose dispatcher died comes back by itself once the lease runs out.
     */
    const claimDue = (args: { readonly now: Date; readonly leaseUntil: Date; readonly limit: number }) =>
      claim(args).pipe(Effect.map((rows) => [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())))

    /**
     * Records how each attempt ended, in one statement. Answers the ids recorded; a notification whose claim is
     * no longer this dispatcher's (its lease ran out and another one claimed it since) is left unchanged.
     */
    const settleAll = (
      attempts: ReadonlyArray<{ readonly claimed: ClaimedNotification; readonly settlement: Settlement }>,
      at: Date
    ): Effect.Effect<ReadonlySet<string>, SqlError> => {
      if (attempts.length === 0) return Effect.succeed(new Set())
      const rows = attempts.map(({ claimed, settlement }) => ({
        id: claimed.id,
        attempts: claimed.attempts,
        status: settlement._tag === "Sent" ? "sent" : settlement._tag === "Failed" ? "failed" : "pending",
        retry_at: settlement._tag === "Retry" ? settlement.retryAt.toISOString() : null,
        sent_at: settlement._tag === "Sent" ? at.toISOString() : null,
        last_error: settlement._tag === "Sent" ? null : settlement.error,
        device_outcomes: settlement.deviceOutcomes
      }))
      return sql<{ id: string }>`
        UPDATE notifications AS n
        SET status = v.status,
            next_attempt_at = COALESCE(v.retry_at, n.next_attempt_at),
            sent_at = COALESCE(v.sent_at, n.sent_at),
            last_error = v.last_error,
            device_outcomes = v.device_outcomes
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
          id uuid, attempts integer, status text, retry_at timestamptz, sent_at timestamptz, last_error text,
          device_outcomes jsonb
        )
        WHERE n.id = v.id AND n.attempts = v.attempts AND n.status = 'pending'
        RETURNING n.id`.pipe(Effect.map((recorded) => new Set(recorded.map((row) => row.id))))
    }

    /** {@link settleAll} for one notification: answers whether it was recorded. */
    const settle = (claimed: ClaimedNotification, settlement: Settlement, at: Date) =>
      Effect.map(settleAll([{ claimed, settlement }], at), (recorded) => recorded.has(claimed.id))

    return { claimDue, settleAll, settle } as const
  })
}) {}
