import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { RatingTotals } from "../sellers/SellerProfile.js"
import type { Rating } from "./Rating.js"

/** Port: stores ratings, at most one per deal, and sums them per seller. */
export class RatingRepo extends Context.Tag("@talab/core/RatingRepo")<
  RatingRepo,
  {
    readonly insert: (rating: Rating) => Effect.Effect<void>
    readonly existsForDeal: (dealId: string) => Effect.Effect<boolean>
    /** The exact sum and count of a seller's ratings, what the seller's average is computed from. */
    readonly totalsForSeller: (sellerId: string) => Effect.Effect<RatingTotals>
  }
>() {}
