/**
 * Property test of bargaining through the use case on the in-memory ports: batches of counters, revisions,
 * withdrawals and accepts run at once (the store runs their transactions one at a time, in any order), the buyer
 * naming the revision they last saw, an older one, or none. Whatever the interleaving, an accepted offer is at a
 * price the buyer was shown (the offer as made, or a revision's answer), at the revision the accept named.
 */
import { Effect, Either, HashMap, Layer, TestContext } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  createdEventOf,
  Memory,
  OFFER_COUNTER_LIMIT,
  type Offer,
  OfferRepo,
  Offers,
  type User
} from "../../src/index.js"
import { seedOffer } from "../ports/fixtures.js"

type Command =
  | { readonly kind: "counter"; readonly price: number }
  | { readonly kind: "revise"; readonly price: number }
  | { readonly kind: "withdraw" }
  | { readonly kind: "accept"; readonly seen: "latest" | "older" | "none" }

const priceArb = fc.integer({ min: 1, max: 100_000 })
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("counter" as const), price: priceArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("revise" as const), price: priceArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("withdraw" as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("accept" as const),
      seen: fc.constantFrom("latest" as const, "older" as const, "none" as const)
    })
  }
)
const batchesArb = fc.array(fc.array(commandArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 })

/** The errors each move may answer with; anything else fails the property. */
const allowed: Record<Command["kind"], ReadonlyArray<string>> = {
  counter: ["OfferNotPending", "RequestNotActive", "CounterLimitReached"],
  revise: ["OfferNotPending"],
  withdraw: ["OfferNotPending", "OfferAlreadyAccepted"],
  accept: ["OfferChanged", "OfferNotPending", "OfferAlreadyAccepted", "RequestNotActive"]
}

const layer = Offers.Default.pipe(Layer.provideMerge(Memory.InMemoryPorts))

const bargain = (batches: ReadonlyArray<ReadonlyArray<Command>>) =>
  Effect.gen(function* () {
    const { buyer, offer, seller } = yield* seedOffer
    const repo = yield* OfferRepo
    yield* repo.appendHistory([createdEventOf(offer)])
    const offers = yield* Offers
    // Every price shown to the buyer, by revision: the offer as made, then each revision's answer.
    const shown = new Map<number, number>([[1, offer.price]])
    const acceptedAt: Array<number | undefined> = []
    let counters = 0
    let revisions = 0

    const expectedOf = (seen: "latest" | "older" | "none", latest: number) =>
      seen === "none" ? undefined : seen === "latest" ? latest : Math.max(1, latest - 1)

    const run = (command: Command, latest: number) => {
      const as = <A, E extends { readonly _tag: string }>(move: Effect.Effect<A, E>) =>
        Effect.flatMap(Effect.either(move), (result) => {
          if (Either.isLeft(result)) expect(allowed[command.kind]).toContain(result.left._tag)
          return Effect.succeed(result)
        })
      switch (command.kind) {
        case "counter":
          return as(offers.counter(buyer as User, offer.id, { price: command.price })).pipe(
            Effect.tap((r) => Effect.sync(() => Either.isRight(r) && counters++))
          )
        case "revise":
          return as(offers.revise(seller as User, offer.id, { price: command.price })).pipe(
            Effect.tap((r) =>
              Effect.sync(() => {
                if (Either.isLeft(r)) return
                revisions++
                const { price, revision } = r.right.result
                expect(shown.has(revision)).toBe(false)
                shown.set(revision, price)
              })
            )
          )
        case "withdraw":
          return as(offers.withdraw(seller as User, offer.id))
        case "accept": {
          const expectedRevision = expectedOf(command.seen, latest)
          return as(
            offers.accept(buyer as User, offer.id, expectedRevision === undefined ? null : { expectedRevision })
          ).pipe(Effect.tap((r) => Effect.sync(() => Either.isRight(r) && acceptedAt.push(expectedRevision))))
        }
      }
    }

    for (const batch of batches) {
      const latest = Math.max(...shown.keys())
      yield* Effect.all(
        batch.map((command) => run(command, latest)),
        { concurrency: "unbounded" }
      )
    }

    const final = (yield* repo.findById(offer.id)).pipe((found) => (found._tag === "Some" ? found.value : undefined))
    expect(final).toBeDefined()
    const stored = final as Offer
    expect(acceptedAt.length).toBeLessThanOrEqual(1)
    expect(stored.revision).toBe(1 + revisions)
    // The price on the table is always one the buyer was shown at that revision.
    expect(stored.price).toBe(shown.get(stored.revision))
    if (stored.status === "accepted") {
      expect(acceptedAt.length).toBe(1)
      const named = acceptedAt[0]
      if (named !== undefined) expect(stored.revision).toBe(named)
    } else {
      expect(acceptedAt.length).toBe(0)
    }

    const history = yield* repo.history(offer.id)
    expect(history[0]!.type).toBe("created")
    expect(history.filter((e) => e.type === "countered").length).toBe(counters)
    expect(counters).toBeLessThanOrEqual(OFFER_COUNTER_LIMIT)
    for (const event of history) {
      if (event.type !== "countered") expect(event.price).toBe(shown.get(event.revision))
    }
    const ended = history.filter((e) => ["accepted", "withdrawn", "rejected"].includes(e.type))
    expect(ended.length).toBe(stored.status === "pending" ? 0 : 1)
    if (ended.length === 1) expect(history.at(-1)).toBe(ended[0])

    // Each move posted one message, numbered without gaps, in the order the moves were stored.
    const messages = yield* Effect.flatMap(Memory.MemoryStore, (store) =>
      store.read((t) => Array.from(HashMap.values(t.messages)).sort((a, b) => a.seq - b.seq))
    )
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1))
    expect(messages.filter((m) => m.kind === "counter").length).toBe(counters)
    expect(messages.filter((m) => m.kind === "revision").length).toBe(revisions)
    const moves = history.filter((e) => e.type === "countered" || e.type === "revised")
    expect(messages.map((m) => m.kind)).toEqual(moves.map((e) => (e.type === "countered" ? "counter" : "revision")))
  })

describe("bargaining (property)", () => {
  it("never reaches a deal at a price the buyer was not shown, at the revision the accept named", async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, (batches) =>
        Effect.runPromise(bargain(batches).pipe(Effect.provide(layer), Effect.provide(TestContext.TestContext)))
      ),
      { numRuns: 150 }
    )
  })
})
