import type { OfferSort } from "@talab/contract"
import {
  audienceOf,
  contactsShownAt,
  maskedField,
  type Offer,
  RequestRepo,
  requireFound,
  requireOffersVisible,
  type User
} from "@talab/core"
import * as Effect from "effect/Effect"
import { AttachedImages } from "../images/Attached.js"
import { OfferQueries } from "./Queries.js"

/** An offer's texts as the buyer reads them: contact details masked until the offer is accepted. */
const asTheBuyerReadsIt = <O extends Pick<Offer, "status" | "availability" | "conditionNotes" | "warrantyNotes">>(
  offer: O
): O =>
  contactsShownAt(offer.status)
    ? offer
    : {
        ...offer,
        availability: maskedField(offer.availability) ?? "",
        conditionNotes: maskedField(offer.conditionNotes),
        warrantyNotes: maskedField(offer.warrantyNotes)
      }

/**
 * The offers of a request as their caller may see them. The offer workflows (make, accept, withdraw) are
 * core's `Offers`.
 */
export class OffersService extends Effect.Service<OffersService>()("Offers/Service", {
  dependencies: [OfferQueries.Default],
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const queries = yield* OfferQueries
    const attached = yield* AttachedImages

    const listForRequest = (caller: User, requestId: string, sort?: OfferSort) =>
      Effect.gen(function* () {
        const request = yield* requireFound("request")(yield* requests.findById(requestId))
        const audience = audienceOf(request, caller)
        const offers = yield* requireOffersVisible(audience, yield* queries.listForRequest(request.id, audience, sort))
        // A seller reads their own offers as written; the buyer reads contact details only in the accepted one.
        // Each offer's photos, to whom the offer itself is shown: the request's owner and the offer's seller.
        return yield* attached.withPhotos("offer", audience._tag === "Seller" ? offers : offers.map(asTheBuyerReadsIt))
      })

    return { listForRequest } as const
  })
}) {}
