import { expect, layer } from "@effect/vitest"
import { DomainEvent, EventOutbox, Transactor } from "@talab/core"
import { Duration, Effect, Layer, Ref } from "effect"
import { SqlRepositoriesLayer } from "../../src/db/Repositories.js"
import { NotificationWakeup } from "../../src/notifications/Wakeup.js"
import { pgliteInMemory } from "../db/support/databases.js"
import { seedOffer } from "../db/support/fixtures.js"
import { now } from "./support/pushes.js"

const signals = Ref.unsafeMake(0)
const countingWakeup = Layer.succeed(NotificationWakeup, {
  signal: Ref.update(signals, (count) => count + 1),
  next: Effect.never
})

const signalCount = Ref.getAndSet(signals, 0)

const repositories = SqlRepositoriesLayer.pipe(Layer.provide(countingWakeup), Layer.provideMerge(pgliteInMemory))

layer(repositories, { timeout: Duration.minutes(2), excludeTestServices: true })(
  "the outbox wakes the dispatcher once notifications are committed",
  (it) => {
    const offerCreated = Effect.map(seedOffer, (seeded) =>
      DomainEvent.OfferCreated({
        offerId: seeded.offer.id,
        requestId: seeded.request.id,
        sellerId: seeded.seller.id,
        buyerId: seeded.buyer.id,
        conversationId: seeded.conversation.id
      })
    )

    it.effect("signals after the commit, not when the rows are written inside the transaction", () =>
      Effect.gen(function* () {
        const event = yield* offerCreated
        const outbox = yield* EventOutbox
        yield* signalCount

        const seenInside = yield* (yield* Transactor).transaction(
          Effect.zipRight(outbox.append([event], yield* now), Ref.get(signals))
        )

        expect(seenInside).toBe(0)
        expect(yield* signalCount).toBe(1)
      })
    )

    it.effect("signals once per outermost transaction, after nested ones", () =>
      Effect.gen(function* () {
        const event = yield* offerCreated
        const outbox = yield* EventOutbox
        const transactor = yield* Transactor
        yield* signalCount

        const seenAfterNested = yield* transactor.transaction(
          Effect.gen(function* () {
            yield* transactor.transaction(outbox.append([event], yield* now))
            yield* outbox.append([event], yield* now)
            return yield* Ref.get(signals)
          })
        )

        expect(seenAfterNested).toBe(0)
        expect(yield* signalCount).toBe(2)
      })
    )

    it.effect("does not signal when the transaction rolls back", () =>
      Effect.gen(function* () {
        const event = yield* offerCreated
        const outbox = yield* EventOutbox
        yield* signalCount

        yield* (yield* Transactor)
          .transaction(Effect.zipRight(outbox.append([event], yield* now), Effect.fail("rolled back")))
          .pipe(Effect.flip)

        expect(yield* signalCount).toBe(0)
      })
    )

    it.effect("does not signal for events that owe no notification", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* signalCount

        yield* (yield* Transactor).transaction(
          Effect.flatMap(EventOutbox, (outbox) =>
            Effect.flatMap(now, (at) =>
              outbox.append(
                [DomainEvent.RequestCreated({ requestId: seeded.request.id, buyerId: seeded.buyer.id })],
                at
              )
            )
          )
        )

        expect(yield* signalCount).toBe(0)
      })
    )

    it.effect("signals at once when appended outside of a transaction", () =>
      Effect.gen(function* () {
        const event = yield* offerCreated
        yield* signalCount

        yield* (yield* EventOutbox).append([event], yield* now)

        expect(yield* signalCount).toBe(1)
      })
    )
  }
)
