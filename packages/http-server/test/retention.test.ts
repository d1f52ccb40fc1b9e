import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, TestClock } from "effect"
import { runRetention } from "../src/ops/Retention.js"
import { freshPostgresDatabase } from "./db/support/databases.js"

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.parse("2026-06-01T12:00:00Z")
const daysAgo = (days: number) => new Date(NOW - days * DAY)
const aPhone = () => `+9665${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`

/** Rows of every kind the job looks at, each on one side of its rule; answers their ids by what must happen. */
const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const userId = randomUUID()
  const phone = aPhone()
  yield* sql`INSERT INTO users (id, phone_number) VALUES (${userId}, ${phone})`
  const session = (expiresAt: Date, revokedAt: Date | null = null) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at)
        VALUES (${randomUUID()}, ${userId}, ${daysAgo(60)}, ${expiresAt}, ${revokedAt}) RETURNING id`,
      ([row]) => row!.id
    )
  const activeSession = yield* session(new Date(NOW + 10 * DAY))
  const revokedUnexpired = yield* session(new Date(NOW + 10 * DAY), daysAgo(1))
  const expiredSession = yield* session(new Date(NOW - 1000))
  const otp = (expiresAt: Date) =>
    Effect.gen(function* () {
      const number = aPhone()
      yield* sql`INSERT INTO otp_challenges (phone_number, code_hash, expires_at) VALUES (${number}, 'h', ${expiresAt})`
      return number
    })
  const liveOtp = yield* otp(new Date(NOW + 60_000))
  const expiredOtp = yield* otp(new Date(NOW - 60_000))
  const notification = (status: string, sentAt: Date | null, createdAt: Date) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO notifications (user_id, type, payload, status, sent_at, created_at)
        VALUES (${userId}, 'message', '{}'::jsonb, ${status}, ${sentAt}, ${createdAt}) RETURNING id`,
      ([row]) => row!.id
    )
  const oldSent = yield* notification("sent", daysAgo(31), daysAgo(31))
  const recentSent = yield* notification("sent", daysAgo(29), daysAgo(29))
  const oldPending = yield* notification("pending", null, daysAgo(40))
  const oldFailed = yield* notification("failed", null, daysAgo(40))
  const event = (processedAt: Date | null, createdAt: Date) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO outbox_events (type, payload, created_at, processed_at)
        VALUES ('Test', '{}'::jsonb, ${createdAt}, ${processedAt}) RETURNING id`,
      ([row]) => row!.id
    )
  const oldPublished = yield* event(daysAgo(31), daysAgo(31))
  const recentPublished = yield* event(daysAgo(29), daysAgo(29))
  const oldUnpublished = yield* event(null, daysAgo(40))
  const idempotencyKey = (expiresAt: Date) =>
    Effect.gen(function* () {
      const key = randomUUID()
      yield* sql`INSERT INTO idempotency_keys (scope, key, request_hash, claim_id, state, status, body, created_at,
          locked_at, expires_at)
        VALUES (${`user:${userId}`}, ${key}, 'h', ${randomUUID()}, 'completed', 201, '{}', ${daysAgo(1)},
          ${daysAgo(1)}, ${expiresAt})`
      return key
    })
  // An answer is kept 24 hours: one an hour past that, one with an hour left (a day later, gone as well).
  const expiredKey = yield* idempotencyKey(new Date(NOW - 60 * 60 * 1000))
  const liveKey = yield* idempotencyKey(new Date(NOW + 60 * 60 * 1000))
  return {
    userId,
    gone: {
      sessions: [expiredSession],
      otps: [expiredOtp],
      notifications: [oldSent],
      events: [oldPublished],
      idempotencyKeys: [expiredKey]
    },
    kept: {
      sessions: [activeSession, revokedUnexpired],
      otps: [liveOtp],
      notifications: [recentSent, oldPending, oldFailed],
      events: [recentPublished, oldUnpublished],
      idempotencyKeys: [liveKey]
    }
  }
})

const present = (table: string, column: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string }>`SELECT ${sql(column)} AS id FROM ${sql(table)} WHERE ${sql.in(column, ids)}`,
      (rows) => rows.map((row) => row.id).sort()
    )
  )

const clean = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`TRUNCATE sessions, otp_challenges, notifications, outbox_events, idempotency_keys, users CASCADE`.pipe(
    Effect.asVoid
  )
)

layer(freshPostgresDatabase, { timeout: Duration.minutes(2) })("retention job", (it) => {
  it.effect("removes exactly the expired and the old delivered rows, and an active session survives", () =>
    Effect.gen(function* () {
      yield* clean
      yield* TestClock.setTime(NOW)
      const rows = yield* seed

      const removed = yield* runRetention(30)

      expect(removed).toEqual({ sessions: 1, otpChallenges: 1, notifications: 1, outboxEvents: 1, idempotencyKeys: 1 })
      expect(yield* present("sessions", "id", [...rows.gone.sessions, ...rows.kept.sessions])).toEqual(
        [...rows.kept.sessions].sort()
      )
      expect(yield* present("otp_challenges", "phone_number", [...rows.gone.otps, ...rows.kept.otps])).toEqual(
        rows.kept.otps
      )
      expect(yield* present("notifications", "id", [...rows.gone.notifications, ...rows.kept.notifications])).toEqual(
        [...rows.kept.notifications].sort()
      )
      expect(yield* present("outbox_events", "id", [...rows.gone.events, ...rows.kept.events])).toEqual(
        [...rows.kept.events].sort()
      )
      expect(
        yield* present("idempotency_keys", "key", [...rows.gone.idempotencyKeys, ...rows.kept.idempotencyKeys])
      ).toEqual(rows.kept.idempotencyKeys)

      // A second run right away finds nothing more.
      expect(yield* runRetention(30)).toEqual({
        sessions: 0,
        otpChallenges: 0,
        notifications: 0,
        outboxEvents: 0,
        idempotencyKeys: 0
      })

      // Two days later the 29-day-old rows are 31 days old; the active session has 8 days left.
      yield* TestClock.adjust(Duration.days(2))
      expect(yield* runRetention(30)).toEqual({
        sessions: 0,
        otpChallenges: 1,
        notifications: 1,
        outboxEvents: 1,
        idempotencyKeys: 1
      })
      expect(yield* present("sessions", "id", rows.kept.sessions)).toEqual([...rows.kept.sessions].sort())
    })
  )

  it.effect("honours RETENTION_DAYS", () =>
    Effect.gen(function* () {
      yield* clean
      yield* TestClock.setTime(NOW)
      yield* seed
      // With 28 days, the 29-day-old delivered notification and published event go too.
      expect(yield* runRetention(28)).toEqual({
        sessions: 1,
        otpChallenges: 1,
        notifications: 2,
        outboxEvents: 2,
        idempotencyKeys: 1
      })
    })
  )

  it.effect("does nothing while another instance runs it (holds its lock)", () =>
    Effect.gen(function* () {
      yield* clean
      yield* TestClock.setTime(NOW)
      yield* seed
      const sql = yield* SqlClient.SqlClient
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // Another instance's run, in its own transaction on its own connection.
      const other = yield* sql
        .withTransaction(
          sql`SELECT pg_advisory_xact_lock(${0x7a1ab_0001})`.pipe(
            Effect.zipRight(Deferred.succeed(locked, undefined)),
            Effect.zipRight(Deferred.await(release))
          )
        )
        .pipe(Effect.fork)
      yield* Deferred.await(locked)

      expect(yield* runRetention(30)).toBeUndefined()

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(other)
      expect(yield* runRetention(30)).toEqual({
        sessions: 1,
        otpChallenges: 1,
        notifications: 1,
        outboxEvents: 1,
        idempotencyKeys: 1
      })
    })
  )
})
