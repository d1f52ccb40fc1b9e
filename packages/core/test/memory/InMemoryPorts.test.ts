import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, HashMap, Layer, Option } from "effect"
import { Memory, newUser, OfferRepo, PushOutcome, PushSender, SmsSender, UserRepo } from "../../src/index.js"
import { aUser, seedOffer } from "../ports/fixtures.js"
import { RepositoryProbe, repositoryContract, violatedUniqueRule } from "../ports/repositoryContract.js"

/** Reads what the in-memory adapters stored straight from their store. */
const memoryProbe = Layer.effect(
  RepositoryProbe,
  Effect.map(Memory.MemoryStore, (store) =>
    RepositoryProbe.of({
      deviceTokensOf: (userId) =>
        store.read((t) =>
          Array.from(HashMap.values(t.deviceTokens))
            .filter((token) => token.userId === userId)
            .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        ),
      eventsWhere: (key, value) =>
        store.read((t) =>
          Chunk.toReadonlyArray(t.outbox).flatMap(({ at, event: { _tag, ...payload } }) =>
            (payload as Record<string, unknown>)[key] === value ? [{ type: _tag, payload, createdAt: at }] : []
          )
        )
    })
  )
)

repositoryContract("in-memory repositories", memoryProbe.pipe(Layer.provideMerge(Memory.InMemoryRepositories)))

describe("InMemoryPorts", () => {
  it.effect("provides every port, each build an empty store of its own", () =>
    Effect.gen(function* () {
      const user = newUser({ id: "u-1", phoneNumber: "+966500000001", isAdmin: false, now: new Date(0) })
      const insert = Effect.flatMap(UserRepo, (users) => users.insertOrGet(user))
      const count = Effect.map(Memory.MemoryStore, (store) => store.committed).pipe(
        Effect.flatten,
        Effect.map((t) => HashMap.size(t.users))
      )
      expect(yield* Effect.provide(Effect.zipRight(insert, count), Memory.InMemoryPorts)).toBe(1)
      expect(yield* Effect.provide(count, Memory.InMemoryPorts)).toBe(0)
    })
  )

  it.effect("records SMS and pushes instead of sending them, and delivers every push", () =>
    Effect.gen(function* () {
      yield* (yield* SmsSender).send({ to: "+966500000001", body: "code 123456", code: "123456" })
      const outcome = yield* (yield* PushSender).send({
        userId: "u-1",
        platform: "ios",
        pushToken: "t-1",
        type: "message",
        title: "Sara",
        body: "hello",
        data: {}
      })
      expect(outcome).toEqual(PushOutcome.Delivered())
      const sent = yield* Memory.SentMessages
      expect((yield* sent.sms).map((sms) => sms.code)).toEqual(["123456"])
      expect((yield* sent.pushes).map((push) => push.pushToken)).toEqual(["t-1"])
    }).pipe(Effect.provide(Memory.InMemoryPorts))
  )

  it.effect("dies with the rule's name on a write the SQL schema would refuse, and keeps the store as it was", () =>
    Effect.gen(function* () {
      const { offer } = yield* seedOffer
      const offers = yield* OfferRepo
      expect(yield* violatedUniqueRule(offers.insertUnlessPending({ ...offer, status: "withdrawn" }))).toBe(
        "offers_pkey"
      )
      expect(yield* offers.findById(offer.id)).toEqual(Option.some(offer))
      const stored = yield* (yield* UserRepo).insertOrGet(aUser())
      expect(yield* violatedUniqueRule((yield* UserRepo).insertOrGet({ ...aUser(), id: stored.id }))).toBe("users_pkey")
    }).pipe(Effect.provide(Memory.InMemoryPorts))
  )
})
