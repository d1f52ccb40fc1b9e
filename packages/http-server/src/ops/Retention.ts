import { SqlClient } from "@effect/sql"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import { recordOperatorAction } from "../audit/AuditTrail.js"
import { AppConfig } from "../config/AppConfig.js"

/** What one run removed, by table. */
interface Removed {
  readonly sessions: number
  readonly otpChallenges: number
  readonly notifications: number
  readonly outboxEvents: number
  readonly idempotencyKeys: number
}

const DAY_MS = 24 * 60 * 60 * 1000

/*
 * One number for every instance: pg_try_advisory_xact_lock(RETENTION_LOCK) lets one transaction at a time
 * run the job; the others skip that round. The transaction-scoped form is the one that works through a
 * pooler in transaction mode (a session lock would stay on whichever server connection took it).
 */
const RETENTION_LOCK = 0x7a1ab_0001

const removedRows = Metric.counter("talab_retention_removed_rows_total", {
  description: "Rows the retention job deleted, by table",
  incremental: true
})

/**
 * Deletes what nobody needs any more: sessions past their expiry (their refresh token no longer works),
 * OTP challenges past their expiry, idempotency keys past their 24 hours, notifications delivered and outbox events published more than
 * `retentionDays` ago. Answers `undefined` when another instance holds the job's lock. The audit log is never
 * among them (its table refuses deletes); a run an operator asked for (`talab retention`) is recorded in it.
 */
export const runRetention = (retentionDays: number, options: { readonly byOperator?: boolean } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = new Date(yield* Clock.currentTimeMillis)
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS)
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const [lock] = yield* sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK}) AS locked`
        if (!lock?.locked) return undefined
        const count = (rows: ReadonlyArray<unknown>) => rows.length
        const removed: Removed = {
          sessions: count(yield* sql`DELETE FROM sessions WHERE expires_at < ${now} RETURNING id`),
          otpChallenges: count(yield* sql`DELETE FROM otp_challenges WHERE expires_at < ${now} RETURNING phone_number`),
          notifications: count(
            yield* sql`DELETE FROM notifications WHERE status = 'sent' AND sent_at < ${cutoff} RETURNING id`
          ),
          outboxEvents: count(
            yield* sql`DELETE FROM outbox_events WHERE processed_at IS NOT NULL AND processed_at < ${cutoff} RETURNING id`
          ),
          idempotencyKeys: count(yield* sql`DELETE FROM idempotency_keys WHERE expires_at < ${now} RETURNING key`)
        }
        if (options.byOperator === true)
          yield* recordOperatorAction({
            action: "database.retention",
            target: null,
            changes: Object.fromEntries(
              Object.entries(removed).map(([table, n]) => [`removed_${table}`, { before: null, after: n }])
            )
          })
        return removed
      })
    )
  }).pipe(
    Effect.tap((removed) =>
      removed === undefined
        ? Effect.logDebug("retention skipped: another instance holds the lock")
        : Effect.all([
            Effect.logInfo("retention").pipe(
              Effect.annotateLogs({
                sessions: removed.sessions,
                otp_challenges: removed.otpChallenges,
                notifications: removed.notifications,
                outbox_events: removed.outboxEvents,
                idempotency_keys: removed.idempotencyKeys,
                retention_days: retentionDays
              })
            ),
            Metric.incrementBy(Metric.tagged(removedRows, "table", "sessions"), removed.sessions),
            Metric.incrementBy(Metric.tagged(removedRows, "table", "otp_challenges"), removed.otpChallenges),
            Metric.incrementBy(Metric.tagged(removedRows, "table", "notifications"), removed.notifications),
            Metric.incrementBy(Metric.tagged(removedRows, "table", "outbox_events"), removed.outboxEvents),
            Metric.incrementBy(Metric.tagged(removedRows, "table", "idempotency_keys"), removed.idempotencyKeys)
          ])
    ),
    Effect.withSpan("retention")
  )

/** How often each instance tries the job; the lock makes one of them do it. */
const RETENTION_INTERVAL = Duration.hours(1)

/** Runs the job a minute after start, then every hour, for the life of the server; a failed run is logged. */
export const RetentionJobLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    yield* runRetention(config.retentionDays).pipe(
      Effect.catchAllCause((cause) => Effect.logError("retention failed", cause)),
      Effect.delay(Duration.minutes(1)),
      Effect.repeat(Schedule.spaced(RETENTION_INTERVAL)),
      Effect.forkScoped
    )
  })
)
