import { requireDealParty, requireFound, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import { AttachedImages } from "../images/Attached.js"
import { DealQueries } from "./Queries.js"

/** Reading a deal, for its parties only. The buyer's complete and cancel are core's `Deals`. */
export class DealsService extends Effect.Service<DealsService>()("Deals/Service", {
  dependencies: [DealQueries.Default],
  effect: Effect.gen(function* () {
    const queries = yield* DealQueries
    const attached = yield* AttachedImages

    const get = (caller: User, id: string) =>
      Effect.gen(function* () {
        const { buyerId, sellerId, ...view } = yield* requireFound("deal")(yield* queries.detail(id))
        yield* requireDealParty({ buyerId, sellerId }, caller)
        const [offer] = yield* attached.withPhotos("offer", [view.offer])
        return { ...view, offer: offer! }
      })

    return { get } as const
  })
}) {}
