import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowsWhere, rowWhere } from "../memory/Rows.js"
import { MemoryStore, UniqueViolation } from "../memory/Store.js"
import { RatingRepo } from "./Repo.js"

/** {@link RatingRepo} over the {@link MemoryStore}: one rating per deal. */
export const MemoryRatingRepo = Layer.effect(
  RatingRepo,
  Effect.map(MemoryStore, (store) =>
    RatingRepo.of({
      insert: (rating) =>
        store.write((t) => {
          if (Option.isSome(rowWhere(t.ratings, (r) => r.dealId === rating.dealId)))
            throw new UniqueViolation({ constraint: "ratings_deal_id_key" })
          return [undefined, insertNew(t, "ratings", rating.id, rating, "ratings_pkey")] as const
        }),
      existsForDeal: (dealId) => store.read((t) => Option.isSome(rowWhere(t.ratings, (r) => r.dealId === dealId))),
      totalsForSeller: (sellerId) =>
        store.read((t) => {
          const ratings = rowsWhere(t.ratings, (r) => r.sellerId === sellerId)
          return { sum: ratings.reduce((sum, r) => sum + r.rating, 0), count: ratings.length }
        })
    })
  )
)
