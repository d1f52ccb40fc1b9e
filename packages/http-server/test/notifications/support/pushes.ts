import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import {
  DeviceTokenRepo,
  type DomainEvent,
  EventOutbox,
  type Language,
  type Platform,
  type Push,
  PushOutcome,
  PushSender,
  Transactor,
  type User,
  UserRepo
} from "@talab/core"
import { Clock, Effect, Layer, Logger, TestClock, TestContext } from "effect"

/**
 * A PushSender whose answers the test scripts per device token (`Delivered` once the script runs out), and
 * which records every call made to it.
 */
export const scriptedPush = () => {
  const calls: Array<Push & { readonly outcome: PushOutcome["_tag"] }> = []
  const scripts = new Map<string, Array<PushOutcome>>()
  const sender = PushSender.of({
    send: (push) =>
      Effect.sync(() => {
        const outcome = scripts.get(push.pushToken)?.shift() ?? PushOutcome.Delivered()
        calls.push({ ...push, outcome: outcome._tag })
        return outcome
      })
  })
  return {
    calls,
    /** The answers to give, in order, for one device token. */
    script: (pushToken: string, ...outcomes: Array<PushOutcome>) => void scripts.set(pushToken, outcomes),
    /** The calls made for one user's devices. */
    to: (userId: string) => calls.filter((call) => call.userId === userId),
    layer: Layer.succeed(PushSender, sender)
  }
}

export type ScriptedPush = ReturnType<typeof scriptedPush>

/** A fixed start for the test clock, so stored times are readable. */
export const T0 = Date.parse("2025-03-01T10:00:00.000Z")

/** Runs a test on the test clock (set to T0), without log output. */
export const onTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.zipRight(TestClock.setTime(T0), effect).pipe(
    Effect.provide(Layer.mergeAll(TestContext.TestContext, Logger.remove(Logger.defaultLogger)))
  )

export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Appends events in a committed transaction, at the clock's time, as the application services do. */
export const commit = (...events: ReadonlyArray<DomainEvent>) =>
  Effect.gen(function* () {
    const transactor = yield* Transactor
    const outbox = yield* EventOutbox
    const at = yield* now
    yield* transactor.transaction(outbox.append(events, at))
  })

export const registerDevice = (userId: string, platform: Platform, pushToken = `token-${randomUUID()}`) =>
  Effect.flatMap(DeviceTokenRepo, (tokens) =>
    tokens.upsert({ id: randomUUID(), userId, sessionId: null, platform, pushToken, createdAt: new Date(T0) })
  )

export const speaks = (user: User, language: Language) =>
  Effect.flatMap(UserRepo, (users) => users.updateProfile(user.id, { language }))

export interface NotificationRow {
  readonly type: string
  readonly status: "pending" | "sent" | "failed"
  readonly attempts: number
  readonly nextAttemptAt: Date
  readonly lastError: string | null
  readonly sentAt: Date | null
  readonly payload: unknown
  readonly deviceOutcomes: Record<string, string>
}

/** Empties the queue, so a test sees only its own notifications. */
export const clearQueue = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM notifications`).pipe(
  Effect.orDie
)

/** The notifications queued for a user, oldest first. */
export const notificationsOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<NotificationRow>`
      SELECT type, status, attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError",
             sent_at AS "sentAt", payload, device_outcomes AS "deviceOutcomes"
      FROM notifications WHERE user_id = ${userId} ORDER BY created_at, id`
  ).pipe(Effect.orDie)
