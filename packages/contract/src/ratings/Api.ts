import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { isValidRatingValue, Rating } from "@talab/core"
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
import { entityView } from "../http/Views.js"

/** An integer from 1 to 5; anything else names the rating's rule. */
const RatingValue = NumberField.pipe(Schema.filter(isValidRatingValue, fieldProblem("rating_range")))

/** A rating as the API shows it: the buyer is the caller, so not repeated. */
export const RatingView = entityView(Rating.fields).omit("buyerId")

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
