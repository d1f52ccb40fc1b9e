import { expect, layer } from "@effect/vitest"
import { DomainEvent, type Push, PushOutcome, PushSender } from "@talab/core"
import { Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Schedule, Scope } from "effect"
import { SqlRepositoriesLayer } from "../../src/db/Repositories.js"
import { type DispatcherOptions, PushDispatcher } from "../../src/notifications/Dispatcher.js"
import { NotificationWakeup } from "../../src/notifications/Wakeup.js"
import { pgliteInMemory } from "../db/support/databases.js"
import { seedOffer } from "../db/support/fixtures.js"
import { commit, notificationsOf, registerDevice, scriptedPush } from "./support/pushes.js"

/** A server instance's share of the app: its repositories and its running dispatcher, on the suite's database. */
const instance = (sender: Layer.Layer<PushSender>, options: Partial<DispatcherOptions>) =>
  PushDispatcher.layer(options).pipe(
    Layer.provideMerge(SqlRepositoriesLayer),
    Layer.provide(sender),
    Layer.provide(NotificationWakeup.layer)
  )

/** Repositories of another process: what they queue wakes nobody here. */
const elsewhere = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, SqlRepositoriesLayer)

const offerCreated = Effect.map(seedOffer, (seeded) => ({
  ...seeded,
  event: DomainEvent.OfferCreated({
    offerId: seeded.offer.id,
    requestId: seeded.request.id,
    sellerId: seeded.seller.id,
    buyerId: seeded.buyer.id,
    conversationId: seeded.conversation.id
  })
}))

const eventually = <A>(check: Effect.Effect<A>, done: (value: A) => boolean) =>
  check.pipe(
    Effect.repeat({ until: done, schedule: Schedule.spaced(Duration.millis(10)) }),
    Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => new Error("condition not met in 10 s") })
  )

layer(pgliteInMemory, { timeout: Duration.minutes(2), excludeTestServices: true })(
  "push dispatcher running in the background",
  (it) => {
    it.scoped("delivers right after the commit, without waiting for the next poll", () =>
      Effect.gen(function* () {
        const pushes = scriptedPush()
        // Polling once an hour: a delivery within seconds can only come from the wakeup after the commit.
        const pollInterval = Duration.hours(1)
        const app = yield* Layer.build(instance(pushes.layer, { pollInterval }))
        const seeded = yield* elsewhere(offerCreated)
        yield* elsewhere(registerDevice(seeded.buyer.id, "android"))

        const start = Date.now()
        yield* commit(seeded.event).pipe(Effect.provide(app))
        yield* eventually(
          Effect.sync(() => pushes.to(seeded.buyer.id).length),
          (count) => count === 1
        )

        // Bounded by `eventually` (10 s); the bound is what a loaded machine takes, far below the poll.
        expect(Date.now() - start).toBeLessThan(Duration.toMillis(pollInterval) / 360)
      })
    )

    it.scoped("polls: delivers what another instance queued within the poll interval", () =>
      Effect.gen(function* () {
        const pushes = scriptedPush()
        yield* Layer.build(instance(pushes.layer, { pollInterval: Duration.millis(100) }))
        const seeded = yield* elsewhere(offerCreated)
        yield* elsewhere(registerDevice(seeded.buyer.id, "ios"))

        yield* elsewhere(commit(seeded.event))
        yield* eventually(
          Effect.sync(() => pushes.to(seeded.buyer.id).length),
          (count) => count === 1
        )
      })
    )

    it.effect("at shutdown, finishes the batch in flight and flushes the pushes due", () =>
      Effect.gen(function* () {
        const inFlight = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const delivered: Array<Push> = []
        const slowFirst = Layer.succeed(
          PushSender,
          PushSender.of({
            send: (push) =>
              Effect.gen(function* () {
                if (push.pushToken === "slow") {
                  yield* Deferred.succeed(inFlight, undefined)
                  yield* Deferred.await(release)
                }
                delivered.push(push)
                return PushOutcome.Delivered()
              })
          })
        )
        const scope = yield* Scope.make()
        const app = yield* Layer.buildWithScope(instance(slowFirst, { pollInterval: Duration.hours(1) }), scope)
        const first = yield* elsewhere(offerCreated)
        const second = yield* elsewhere(offerCreated)
        yield* elsewhere(registerDevice(first.buyer.id, "android", "slow"))
        yield* elsewhere(registerDevice(second.buyer.id, "android"))

        yield* commit(first.event).pipe(Effect.provide(app))
        yield* Deferred.await(inFlight)
        yield* elsewhere(commit(second.event))

        const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
        yield* Effect.sleep(Duration.millis(100))
        expect(Option.isNone(yield* Fiber.poll(closing))).toBe(true)
        expect(yield* notificationsOf(first.buyer.id)).toEqual([expect.objectContaining({ status: "pending" })])

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(closing)

        expect(delivered.map((push) => push.userId).sort()).toEqual([first.buyer.id, second.buyer.id].sort())
        expect(yield* notificationsOf(first.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
        expect(yield* notificationsOf(second.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      })
    )
  }
)
