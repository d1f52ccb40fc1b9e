import { Memory, UserRepo } from "@talab/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Marketplace, wholeFlow } from "../src/Flow.js"

describe("embedding core: the whole flow on the in-memory adapters", () => {
  it("runs request, offer, chat, accept, complete and rating through core's use cases", async () => {
    const outcome = await Effect.runPromise(wholeFlow.pipe(Effect.provide(Marketplace)))
    expect(outcome).toEqual({
      profileStatus: "approved",
      offerByNonSeller: "SellerNotApproved",
      messages: 2,
      dealStatus: "completed",
      requestStatus: "closed",
      rating: 5,
      sellerRating: { average: 5, count: 1 },
      notifications: [
        "offer_created → 00000000-0000-4000-8000-000000000002",
        "message → 00000000-0000-4000-8000-000000000003",
        "message → 00000000-0000-4000-8000-000000000002",
        "offer_accepted → 00000000-0000-4000-8000-000000000002",
        "offer_accepted → 00000000-0000-4000-8000-000000000003",
        "rating_prompt → 00000000-0000-4000-8000-000000000002"
      ]
    })
  })

  it("keeps nothing of a use case that failed, and each build of the layer is a database of its own", async () => {
    const program = Effect.gen(function* () {
      yield* Effect.either(wholeFlow)
      const tables = yield* Effect.flatMap(Memory.MemoryStore, (store) => store.committed)
      return tables
    })
    const first = await Effect.runPromise(program.pipe(Effect.provide(Marketplace)))
    // The refused offer left no row: one offer, by the seller.
    expect([...first.offers].map(([, offer]) => offer.sellerId)).toEqual(["00000000-0000-4000-8000-000000000003"])
    const fresh = await Effect.runPromise(
      Effect.flatMap(UserRepo, (users) => users.findByPhone("+966500000002")).pipe(Effect.provide(Marketplace))
    )
    expect(fresh._tag).toBe("None")
  })
})
