import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { requireDealBuyer } from "../deals/Policy.js"
import { DealRepo } from "../deals/Repo.js"
import { Ids } from "../platform/Ids.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { addRating } from "../sellers/SellerProfile.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { FreeText, Optional, UuidField } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { RatingValue, rateDeal } from "./Rating.js"
import { RatingRepo } from "./Repo.js"

/** The buyer's rating of a deal's seller. */
export const RatingInput = Schema.Struct({
  dealId: UuidField,
  rating: RatingValue,
  reviewText: Optional(FreeText(0, 2000))
})
export type RatingInput = typeof RatingInput.Type

const foundDeal = requireFound("deal")

/** The rating workflow: the buyer rates the seller of a completed deal. */
export class Ratings extends Effect.Service<Ratings>()("@talab/core/Ratings", {
  effect: Effect.gen(function* () {
    const deals = yield* DealRepo
    const ratings = yield* RatingRepo
    const profiles = yield* SellerProfileRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids

    /**
     * The buyer rates once per deal: the deal is locked, so of racing ratings one is stored. The seller's
     * profile is locked next and their average recomputed from the exact totals of their ratings, so ratings
     * of the seller's other deals, racing this one, queue and each count.
     */
    const rate = (caller: User, input: RatingInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const deal = yield* foundDeal(yield* deals.lock(input.dealId))
          yield* requireDealBuyer(deal, caller)
          const { state: rating, events } = yield* rateDeal({
            id: yield* ids.next,
            deal,
            alreadyRated: yield* ratings.existsForDeal(deal.id),
            rating: input.rating,
            reviewText: input.reviewText ?? null,
            now: at
          })
          const profile = yield* profiles.lockByUserId(deal.sellerId)
          const totals = yield* ratings.totalsForSeller(deal.sellerId)
          yield* ratings.insert(rating)
          if (Option.isSome(profile)) {
            const { ratingAvg, ratingCount } = addRating(totals, rating.rating)
            yield* profiles.update({ ...profile.value, ratingAvg, ratingCount })
          }
          yield* outbox.append(events, at)
          return rating
        })
      )

    return { rate } as const
  })
}) {}
