import { requireDealParty, requireFound, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import { DealQueries } from "./Queries.js"

/** Reading a deal, for its parties only. The buyer's complete and cancel are core's `Deals`. */
export class DealsService extends Effect.Service<DealsService>()("Deals/Service", {
  dependencies: [DealQueries.Default],
  effect: Effect.gen(function* () {
    const queries = yield* DealQueries

    const get = (caller: User, id: string) =>
      Effect.gen(function* () {
        const { buyerId, sellerId, ...view } = yield* requireFound("deal")(yield* queries.detail(id))
        yield* requireDealParty({ buyerId, sellerId }, caller)
        return view
      })

    return { get } as const
  })
}) {}
