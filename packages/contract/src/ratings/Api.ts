import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { isValidRatingValue } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { FreeText, NumberField, Optional, Payload, UuidField } from "../http/Fields.js"
import { fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"

/** An integer from 1 to 5; anything else names the rating's rule. */
const RatingValue = NumberField.pipe(Schema.filter(isValidRatingValue, fieldProblem("rating_range")))

export const RatingView = Schema.Struct({
  id: Schema.UUID,
  deal_id: Schema.UUID,
  seller_id: Schema.UUID,
  rating: Schema.Int,
  review_text: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

/** The buyer's rating of the seller of a completed deal. */
export class RatingsApi extends HttpApiGroup.make("ratings")
  .add(
    HttpApiEndpoint.post("rate", "/ratings")
      .setPayload(Payload({ deal_id: UuidField, rating: RatingValue, review_text: Optional(FreeText(0, 2000)) }))
      .addSuccess(Ok(RatingView), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
