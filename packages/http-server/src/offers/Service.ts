import type { OfferSort } from "@talab/contract"
import { audienceOf, RequestRepo, requireFound, requireOffersVisible, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import { OfferQueries } from "./Queries.js"

/**
 * The offers of a request as their caller may see them. The offer workflows (make, accept, withdraw) are
 * core's `Offers`.
 */
export class OffersService extends Effect.Service<OffersService>()("Offers/Service", {
  dependencies: [OfferQueries.Default],
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const queries = yield* OfferQueries

    const listForRequest = (caller: User, requestId: string, sort?: OfferSort) =>
      Effect.gen(function* () {
        const request = yield* requireFound("request")(yield* requests.findById(requestId))
        const audience = audienceOf(request, caller)
        return yield* requireOffersVisible(audience, yield* queries.listForRequest(request.id, audience, sort))
      })

    return { listForRequest } as const
  })
}) {}
