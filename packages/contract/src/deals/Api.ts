import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { DealCancellation, DealStatus, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import { BusinessRuleResponse, ForbiddenResponse, NotFoundResponse, Ok } from "../http/Envelope.js"
import { OneOf, PageParams, Pagination, PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { DealView, OfferView, Party, RequestView, SellerProfileView } from "../http/Views.js"
import { Photos } from "../images/View.js"

const SellerParty = (...figures: ReadonlyArray<"ratingAvg" | "ratingCount">) =>
  Schema.Struct({ ...Party.fields, ...SellerProfileView.pick(...figures).fields })

/** An item of the caller's deals. */
export const DealListItem = Schema.Struct({
  ...DealView.pick("id", "status", "createdAt").fields,
  request: RequestView.pick("id", "productBrand", "productModel"),
  offer: OfferView.pick("id", "price", "revision"),
  buyer: Party,
  seller: SellerParty("ratingAvg")
})

/** A deal as its parties see it. */
export const DealDetail = Schema.Struct({
  ...DealView.pick(
    "id",
    "status",
    "conversationId",
    "createdAt",
    "completedAt",
    "cancelledAt",
    "cancelReason",
    "cancelDescription"
  ).fields,
  request: RequestView.pick(
    "id",
    "category",
    "productBrand",
    "productModel",
    "budgetMin",
    "budgetMax",
    "locationDistrict",
    "locationCity"
  ),
  offer: Schema.Struct({
    ...OfferView.pick("id", "price", "revision", "availability", "conditionNotes", "warrantyNotes", "status").fields,
    photos: Photos
  }),
  buyer: Party,
  seller: SellerParty("ratingAvg", "ratingCount")
})

/** The caller's side of a deal, to filter GET /deals/my by: deals where they are the `buyer`, or the `seller`. */
export const DealRole = Schema.Literal("buyer", "seller")
export type DealRole = typeof DealRole.Type

const partiesOnly = "Only the deal's two parties (buyer and seller) may call it."

/** Deals: the caller's list, one deal, complete and cancel. */
export class DealsApi extends HttpApiGroup.make("deals")
  .annotate(OpenApi.Title, "Deals")
  .annotate(
    OpenApi.Description,
    "An accepted offer becomes a deal between buyer and seller, completed or cancelled by either party."
  )
  .add(
    HttpApiEndpoint.get("listMine", "/deals/my")
      .setUrlParams(
        Schema.Struct({
          status: Schema.optional(OneOf(...DealStatus.literals)),
          role: Schema.optional(OneOf(...DealRole.literals)),
          ...PageParams
        })
      )
      .addSuccess(Ok(Schema.Struct({ deals: Schema.Array(DealListItem), pagination: Pagination })))
      .annotate(OpenApi.Summary, "List my deals")
      .annotate(
        OpenApi.Description,
        "The signed-in user's deals as buyer and as seller (`role` narrows), newest first, in every state unless `status` filters."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/deals/:id")
      .setPath(IdPath)
      .addSuccess(Ok(DealDetail))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Get a deal")
      .annotate(OpenApi.Description, `${partiesOnly} The deal with its offer, request and conversation.`)
      .annotate(ErrorCases, { NOT_FOUND: "no deal has this id", FORBIDDEN: "the caller is not a party of the deal" })
  )
  .add(
    HttpApiEndpoint.put("complete", "/deals/:id/complete")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...DealView.pick("id", "status").fields,
            ...snakeCaseKeys({ completedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Complete a deal")
      .annotate(
        OpenApi.Description,
        `${partiesOnly} An accepted deal becomes \`completed\`; the buyer gets a \`rating_prompt\` push.`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no deal has this id",
        FORBIDDEN: "the caller is not a party of the deal",
        DEAL_NOT_ACTIVE: "the deal is completed or cancelled already"
      })
  )
  .add(
    HttpApiEndpoint.put("cancel", "/deals/:id/cancel")
      .setPath(IdPath)
      .setPayload(PayloadOf(DealCancellation))
      .addSuccess(
        Ok(
          Schema.Struct({
            ...DealView.pick("id", "status").fields,
            ...snakeCaseKeys({ cancelledAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Cancel a deal")
      .annotate(
        OpenApi.Description,
        `${partiesOnly} An accepted deal becomes \`cancelled\`, with a reason; the request stays closed.`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no deal has this id",
        FORBIDDEN: "the caller is not a party of the deal",
        DEAL_NOT_ACTIVE: "the deal is completed or cancelled already"
      })
      .annotate(RequestExample, { reason: "The buyer found the phone elsewhere", description: "Agreed by phone" })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
