import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Deal } from "../deals/Deal.js"
import { ValidationFailed } from "../shared/Errors.js"
import { DomainEvent } from "../shared/Events.js"
import { fieldRule, NumberField } from "../shared/Fields.js"
import { moved, type Transition } from "../shared/Transition.js"

/** A buyer's rating of the seller of a completed deal. */
export const Rating = Schema.Struct({
  id: Schema.UUID,
  dealId: Schema.UUID,
  sellerId: Schema.UUID,
  buyerId: Schema.UUID,
  rating: Schema.Int,
  reviewText: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
export interface Rating extends Schema.Schema.Type<typeof Rating> {}

/** Whether a rating is a whole number of stars from 1 to 5. */
export const isValidRatingValue = (value: number) => Number.isInteger(value) && value >= 1 && value <= 5

/** A rating as given: an integer from 1 to 5; anything else names the rating's rule. */
export const RatingValue = NumberField.pipe(Schema.filter(isValidRatingValue, fieldRule("rating_range"))).annotations({
  jsonSchema: { type: "integer", minimum: 1, maximum: 5 }
})

/**
 * The buyer of a completed deal rates its seller once. The spec calls each broken rule a validation
 * error, so each names the field it is about.
 */
export const rateDeal = (args: {
  readonly id: string
  readonly deal: Deal
  readonly alreadyRated: boolean
  readonly rating: number
  readonly reviewText: string | null
  readonly now: Date
}): Transition<Rating, ValidationFailed> => {
  if (!isValidRatingValue(args.rating)) return Either.left(ValidationFailed.field("rating", "rating_range"))
  if (args.deal.status !== "completed") return Either.left(ValidationFailed.field("deal_id", "deal_not_completed"))
  if (args.alreadyRated) return Either.left(ValidationFailed.field("deal_id", "deal_already_rated"))
  const rating: Rating = {
    id: args.id,
    dealId: args.deal.id,
    sellerId: args.deal.sellerId,
    buyerId: args.deal.buyerId,
    rating: args.rating,
    reviewText: args.reviewText,
    createdAt: args.now
  }
  return moved(rating, [
    DomainEvent.RatingSubmitted({
      ratingId: rating.id,
      dealId: rating.dealId,
      sellerId: rating.sellerId,
      rating: rating.rating
    })
  ])
}
