import * as SqlClient from "@effect/sql/SqlClient"
import { DeviceTokenRepo, PushOutcome, PushSender } from "@talab/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { causeIsUnreachable } from "../db/Availability.js"
import { BackgroundSqlClient } from "../db/BackgroundSqlClient.js"
import { ServerLifecycle } from "../server/Lifecycle.js"
import { type BackoffPolicy, retryDelayMs } from "./Backoff.js"
import {
  type Facts,
  NotificationContent,
  type PushText,
  type Recipient,
  type RecipientDevice,
  wordPush
} from "./Content.js"
import { type ClaimedNotification, type DeviceOutcome, NotificationStore, Settlement } from "./NotificationStore.js"
import { NotificationWakeup } from "./Wakeup.js"

export interface DispatcherOptions {
  /** How often to look for due notifications when nothing wakes the dispatcher sooner. */
  readonly pollInterval: Duration.DurationInput
  /** Notifications claimed per round trip. */
  readonly batchSize: number
  /** Notifications of a batch delivered at the same time. */
  readonly concurrency: number
  /**
   * How long a claim keeps other dispatchers off a notification. Longer than a batch can take (provider calls
   * time out after 10 s); a claim of a dispatcher that died is taken over once it runs out.
   */
  readonly lease: Duration.DurationInput
  /** Attempts before a device that keeps failing transiently is given up. */
  readonly maxAttempts: number
  readonly backoff: BackoffPolicy
  /** Longest wait at shutdown for the pushes due to go out (and never past the server's shutdown deadline). */
  readonly shutdownFlush: Duration.DurationInput
  /** Longest pause between rounds while they keep failing (the database is down): the pause doubles up to it. */
  readonly maxFailurePause: Duration.DurationInput
}

const defaultDispatcherOptions: DispatcherOptions = {
  pollInterval: Duration.millis(250),
  batchSize: 50,
  concurrency: 25,
  lease: Duration.seconds(60),
  maxAttempts: 8,
  backoff: { base: Duration.seconds(2), max: Duration.minutes(10) },
  shutdownFlush: Duration.seconds(10),
  maxFailurePause: Duration.seconds(30)
}

/** What one pass over the due notifications did. */
export interface DrainReport {
  /** Notifications claimed and attempted. */
  readonly attempted: number
}

/**
 * Delivers the notifications queued in the database: claims the due ones, words each in its recipient's
 * language, pushes it to every device token of the recipient and records the outcome (sent, retry later with
 * backoff, or failed). Any number of dispatchers, in one process or many, can share a database: a claim is
 * exclusive until its lease ends, so each notification is delivered once.
 */
export class PushDispatcher extends Context.Tag("Notifications/Dispatcher")<
  PushDispatcher,
  {
    /** Delivers every notification due now, batch after batch, and answers how many were attempted. */
    readonly drain: Effect.Effect<DrainReport>
  }
>() {
  /**
   * The dispatcher running in the background for the scope's lifetime; at its end, pushes due go out first.
   * Its statements go through the database's BackgroundSqlClient when there is one.
   */
  static readonly layer = (
    options: Partial<DispatcherOptions> = {}
  ): Layer.Layer<PushDispatcher, never, SqlClient.SqlClient | PushSender | DeviceTokenRepo> =>
    Layer.scoped(PushDispatcher, onBackgroundSql(running({ ...defaultDispatcherOptions, ...options })))

  /** The dispatcher without its background fiber: tests drain it when they choose. */
  static readonly Test = (
    options: Partial<DispatcherOptions> = {}
  ): Layer.Layer<PushDispatcher, never, SqlClient.SqlClient | PushSender | DeviceTokenRepo> =>
    Layer.effect(PushDispatcher, make({ ...defaultDispatcherOptions, ...options }))
}

const onBackgroundSql = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(BackgroundSqlClient),
    Option.match({
      onNone: () => effect,
      onSome: (background) => Effect.provideService(effect, SqlClient.SqlClient, background)
    })
  )

const currentDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const describeOutcome = (outcome: PushOutcome) => ("reason" in outcome ? outcome.reason : outcome._tag)

const make = (options: DispatcherOptions) =>
  Effect.gen(function* () {
    const store = yield* NotificationStore
    const content = yield* NotificationContent
    const sender = yield* PushSender
    const deviceTokens = yield* DeviceTokenRepo
    const leaseMs = Duration.toMillis(options.lease)

    const forgetDevice = (pushToken: string) =>
      deviceTokens
        .removeToken(pushToken)
        .pipe(Effect.catchAllCause((cause) => Effect.logError("Could not delete an unregistered device token", cause)))

    const pushToDevice = (notification: ClaimedNotification, text: PushText) => (device: RecipientDevice) =>
      sender
        .send({
          userId: notification.userId,
          platform: device.platform,
          pushToken: device.pushToken,
          type: notification.type,
          title: text.title,
          body: text.body,
          data: notification.data
        })
        .pipe(
          // Adapters answer outcomes and never fail; should one die, the device is tried again later.
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError("Push sender died", cause), PushOutcome.Retryable({ reason: "push sender died" }))
          ),
          Effect.tap((outcome) => (outcome._tag === "Unregistered" ? forgetDevice(device.pushToken) : Effect.void)),
          Effect.map((outcome) => [device.pushToken, outcome] as const)
        )

    /** How this attempt ends, given what each device said. */
    const settlementOf = (notification: ClaimedNotification, results: ReadonlyArray<readonly [string, PushOutcome]>) =>
      Effect.gen(function* () {
        const outcomes: Record<string, DeviceOutcome> = { ...notification.deviceOutcomes }
        const retryable: Array<{ readonly retryAfterMs?: number }> = []
        const errors: Array<string> = []
        const outOfAttempts = notification.attempts >= options.maxAttempts
        for (const [token, outcome] of results) {
          if (outcome._tag === "Delivered") outcomes[token] = "delivered"
          else if (outcome._tag === "Unregistered") outcomes[token] = "unregistered"
          else {
            errors.push(describeOutcome(outcome))
            if (outcome._tag === "Retryable" && !outOfAttempts) retryable.push(outcome)
            else outcomes[token] = "failed"
          }
        }
        const error = errors.join("; ")
        if (retryable.length > 0) {
          const retryAfterMs = Math.max(0, ...retryable.map((outcome) => outcome.retryAfterMs ?? 0))
          const delayMs = retryDelayMs(options.backoff, notification.attempts, yield* Random.next, retryAfterMs)
          const retryAt = new Date((yield* Clock.currentTimeMillis) + delayMs)
          return Settlement.Retry({ deviceOutcomes: outcomes, retryAt, error })
        }
        const values = Object.values(outcomes)
        return values.includes("failed") && !values.includes("delivered")
          ? Settlement.Failed({ deviceOutcomes: outcomes, error })
          : Settlement.Sent({ deviceOutcomes: outcomes })
      })

    /** The recipient's devices this notification has not settled yet. */
    const devicesLeft = (notification: ClaimedNotification, recipient: Recipient | undefined) =>
      (recipient?.devices ?? []).filter((device) => notification.deviceOutcomes[device.pushToken] === undefined)

    const attempt = (notification: ClaimedNotification, recipient: Recipient | undefined, facts: Facts) =>
      Effect.gen(function* () {
        const devices = devicesLeft(notification, recipient)
        // A recipient who is gone, or has no device left to reach: nothing to deliver, so nothing owed.
        if (recipient === undefined || devices.length === 0) {
          return { claimed: notification, settlement: Settlement.Sent({ deviceOutcomes: notification.deviceOutcomes }) }
        }
        const text = wordPush(notification.type, notification.userId, facts, recipient.language)
        const results = yield* Effect.forEach(devices, pushToDevice(notification, text), { concurrency: "unbounded" })
        return { claimed: notification, settlement: yield* settlementOf(notification, results) }
      })

    // A batch, once claimed, is finished even when the dispatcher is asked to stop: interrupting it halfway
    // would leave pushes sent but not recorded, to be sent again after the lease. Reads and the record of the
    // outcomes are done for the whole batch at once, so a batch costs a few queries whatever its size.
    const drainBatch = Effect.gen(function* () {
      const now = yield* currentDate
      // Polled several times a second: a span for every empty look would drown the traces.
      const claimed = yield* store
        .claimDue({ now, leaseUntil: new Date(now.getTime() + leaseMs), limit: options.batchSize })
        .pipe(Effect.withTracerEnabled(false))
      if (claimed.length === 0) return 0
      return yield* deliverClaimed(claimed).pipe(
        Effect.withSpan("push.dispatch", { root: true, attributes: { "push.notifications": claimed.length } })
      )
    }).pipe(Effect.orDie, Effect.uninterruptible)

    const deliverClaimed = (claimed: ReadonlyArray<ClaimedNotification>) =>
      Effect.gen(function* () {
        const recipients = yield* content.recipientsOf(claimed.map((notification) => notification.userId))
        // Only what will be worded needs its facts: with no device left to reach, none are read (no query at all
        // when no recipient of the batch has one).
        const factsOf = yield* content.factsFor(
          claimed.filter((notification) => devicesLeft(notification, recipients.get(notification.userId)).length > 0)
        )
        const attempts = yield* Effect.forEach(
          claimed,
          (notification) => attempt(notification, recipients.get(notification.userId), factsOf(notification)),
          { concurrency: options.concurrency }
        )
        const recorded = yield* store.settleAll(attempts, yield* currentDate)
        if (recorded.size < attempts.length) {
          yield* Effect.logWarning("Push notifications claimed by another dispatcher before they were settled").pipe(
            Effect.annotateLogs({
              notification_ids: attempts.map((a) => a.claimed.id).filter((id) => !recorded.has(id))
            })
          )
        }
        return claimed.length
      })

    const drain: Effect.Effect<DrainReport> = Effect.gen(function* () {
      let attempted = 0
      while (true) {
        const count = yield* drainBatch
        attempted += count
        if (count < options.batchSize) return { attempted }
      }
    })

    return { drain, drainBatch }
  }).pipe(Effect.provide(Layer.merge(NotificationStore.Default, NotificationContent.Default)))

const running = (options: DispatcherOptions) =>
  Effect.gen(function* () {
    const { drain, drainBatch } = yield* make(options)
    const wakeup = yield* NotificationWakeup
    const idle = Effect.raceFirst(wakeup.next, Effect.sleep(options.pollInterval))

    const pauseAfter = (failures: number) =>
      Duration.min(Duration.times(options.pollInterval, 2 ** Math.min(failures - 1, 16)), options.maxFailurePause)

    // A run of failed rounds is logged twice, when it starts and when it ends, however long it lasts.
    const loop = Effect.gen(function* () {
      let failures = 0
      while (true) {
        const round = yield* Effect.either(Effect.sandbox(drainBatch))
        if (round._tag === "Right") {
          if (failures > 0)
            yield* Effect.logInfo("Push dispatch resumed").pipe(Effect.annotateLogs({ failed_rounds: failures }))
          failures = 0
          if (round.right < options.batchSize) yield* idle
          continue
        }
        failures += 1
        if (failures === 1) {
          yield* causeIsUnreachable(round.left)
            ? Effect.logWarning("Push dispatch paused: the database is unreachable; retrying with backoff").pipe(
                Effect.annotateLogs({ error: Cause.pretty(round.left).split("\n")[0] })
              )
            : Effect.logError("Push dispatch round failed; retrying with backoff", round.left)
        }
        yield* Effect.sleep(pauseAfter(failures))
      }
    })

    const lifecycle = yield* ServerLifecycle
    const fiber = yield* Effect.forkDaemon(loop)
    yield* Effect.addFinalizer(() =>
      Fiber.interrupt(fiber).pipe(
        Effect.zipRight(drain),
        Effect.timeout(
          Duration.min(options.shutdownFlush, Duration.millis(Math.max(0, lifecycle.remainingMs() - 1_000)))
        ),
        Effect.catchAllCause((cause) => Effect.logWarning("Pushes not flushed at shutdown", cause))
      )
    )
    return { drain }
  })
