import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Rating, RatingInput } from "@talab/core"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { PayloadOf } from "../http/Fields.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { entityView } from "../http/Views.js"

/** A rating as the API shows it: the buyer is the caller, so not repeated. */
export const RatingView = entityView(Rating.fields).omit("buyerId")

/** The buyer's rating of the seller of a completed deal. */
export class RatingsApi extends HttpApiGroup.make("ratings")
  .annotate(OpenApi.Title, "Ratings")
  .annotate(OpenApi.Description, "After a completed deal the buyer rates the seller once, from 1 to 5.")
  .add(
    HttpApiEndpoint.post("rate", "/ratings")
      .setPayload(PayloadOf(RatingInput))
      .addSuccess(Ok(RatingView), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Rate the seller of a deal")
      .annotate(
        OpenApi.Description,
        "The deal's buyer, once the deal is completed, once per deal. Updates the seller's `rating_avg` and `rating_count`."
      )
      .annotate(ErrorCases, {
        VALIDATION_ERROR:
          "a field is invalid, the rating is not an integer from 1 to 5, the deal is not completed, or it was rated already",
        NOT_FOUND: "no deal has this id",
        FORBIDDEN: "the caller is not the deal's buyer"
      })
      .annotate(RequestExample, {
        deal_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
        rating: 5,
        review_text: "Exactly as described."
      })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
