import {
  addRating,
  DealRepo,
  EventOutbox,
  Ids,
  RatingRepo,
  rateDeal,
  SellerProfileRepo,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { foundDeal, requireBuyer } from "../deals/Policy.js"

/** Rating the seller of a completed deal. */
export class RatingsService extends Effect.Service<RatingsService>()("Ratings/Service", {
  effect: Effect.gen(function* () {
    const deals = yield* DealRepo
    const ratings = yield* RatingRepo
    const profiles = yield* SellerProfileRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * The buyer rates once per deal: the deal row is locked, so of racing ratings one is stored. The
     * seller's profile is locked next and their average recomputed from the exact totals of their
     * ratings, so ratings of the seller's other deals, racing this one, queue and each count.
     */
    const rate = (
      caller: User,
      input: { readonly dealId: string; readonly rating: number; readonly reviewText: string | null }
    ) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const deal = yield* foundDeal(yield* deals.lock(input.dealId))
          yield* requireBuyer(deal, caller)
          const { state: rating, events } = yield* rateDeal({
            id: yield* ids.next,
            deal,
            alreadyRated: yield* ratings.existsForDeal(deal.id),
            rating: input.rating,
            reviewText: input.reviewText,
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
