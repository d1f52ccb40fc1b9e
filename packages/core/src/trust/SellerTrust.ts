import * as Schema from "effect/Schema"

/**
 * A seller's trust figures (docs/DECISIONS.md, "Seller trust score"), kept by the writes and read whole. A figure
 * with no data behind it yet is null, never 0: a seller nobody has rated has no average, not an average of 0.
 * Counts are counts (0).
 */
export const SellerTrust = Schema.Struct({
  medianFirstOfferMinutes: Schema.NullOr(Schema.Number).annotations({
    description:
      "Median minutes from a request's alert to this seller (its match) to their first offer on it; null before any."
  }),
  medianReplyMinutes: Schema.NullOr(Schema.Number).annotations({
    description:
      "Median minutes from the buyer's first message of a conversation to the seller's first message after it; null before any."
  }),
  completionRate: Schema.NullOr(Schema.Number).annotations({
    description: "Completed deals / accepted deals (every deal ever made), 0..1 to 2 decimals; null with no deal."
  }),
  cancellationRate: Schema.NullOr(Schema.Number).annotations({
    description: "Cancelled deals / accepted deals, 0..1 to 2 decimals; null with no deal."
  }),
  ratingAvg: Schema.NullOr(Schema.Number).annotations({
    description: "The average rating to 2 decimals; null before the first rating."
  }),
  ratingCount: Schema.Int,
  completedDeals: Schema.Int,
  memberSince: Schema.DateFromSelf.annotations({ description: "When the seller's account was created." })
})
export interface SellerTrust extends Schema.Schema.Type<typeof SellerTrust> {}
