import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { OfferInput, OfferStatus } from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage,
  OkWithMessage
} from "../http/Envelope.js"
import { OneOf, PageParams, Pagination, PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { DealView, OfferView, Party, RequestView, SellerProfileView } from "../http/Views.js"
import { SellerTrust } from "../trust/View.js"

/** An offer of the offers-of-a-request list: the seller as an object instead of seller_id. */
export const RequestOfferItem = Schema.Struct({
  ...OfferView.omit("sellerId").fields,
  seller: Schema.Struct({
    ...Party.fields,
    ...SellerProfileView.pick("ratingAvg", "ratingCount", "locationDistrict").fields,
    trust: SellerTrust
  })
})

/**
 * Orders of the offers-of-a-request list. `newest` (the default) is the spec's created_at desc, id desc;
 * `price` cheapest first; `rating` best average first; `response_time` fastest median chat reply first.
 * A seller with no figure (no rating, no reply yet) comes after every seller with one; ties keep the default order.
 */
export const OfferSort = OneOf("newest", "price", "rating", "response_time")
export type OfferSort = typeof OfferSort.Type

/** An item of the caller's own offers, with the request it answers. */
export const MyOfferItem = Schema.Struct({
  ...OfferView.pick("id", "requestId").fields,
  request: RequestView.pick("id", "productBrand", "productModel", "budgetMax"),
  ...OfferView.pick("price", "status", "createdAt", "validUntil").fields
})

/** The deal an accept makes. */
export const AcceptedDeal = DealView.pick("id", "requestId", "offerId", "buyerId", "sellerId", "status", "createdAt")

/** Offers: make, list, accept, withdraw. */
export class OffersApi extends HttpApiGroup.make("offers")
  .annotate(OpenApi.Title, "Offers")
  .annotate(
    OpenApi.Description,
    "Approved sellers offer on active requests; the buyer accepts one (which closes the request and opens a deal) and the seller may withdraw a pending one."
  )
  .add(
    HttpApiEndpoint.post("create", "/offers")
      .setPayload(PayloadOf(OfferInput))
      .addSuccess(OkWithMessage(OfferView), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Make an offer on a request")
      .annotate(
        OpenApi.Description,
        "An approved seller. Creates a `pending` offer on an active request of someone else, opens a conversation with the buyer and pushes `offer_created` to them. One pending offer per seller and request (an expired one does not count). A price outside the buyer's budget is accepted with a note in `message`. With `valid_until` (at least 1 hour, at most 30 days ahead) the offer becomes `expired` past it: it can no longer be accepted and leaves `offer_count`."
      )
      .annotate(ErrorCases, {
        SELLER_NOT_APPROVED: "the caller has no approved seller profile (none, pending, rejected or suspended)",
        NOT_FOUND: "no request has this id",
        VALIDATION_ERROR: "a field is invalid, or `valid_until` is less than 1 hour or more than 30 days ahead",
        REQUEST_NOT_ACTIVE: "the request is closed or expired",
        DUPLICATE_PENDING_OFFER: "the seller already has a pending offer on this request",
        CANNOT_OFFER_ON_OWN_REQUEST: "the request is the seller's own"
      })
      .annotate(RequestExample, {
        request_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
        price: 3200,
        availability: "Today after 6 pm, Al Rawdah",
        condition_notes: "Used 8 months, no scratches",
        warranty_notes: "6 months shop warranty"
      })
  )
  .add(
    HttpApiEndpoint.get("listForRequest", "/requests/:id/offers")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({ sort: Schema.optional(OfferSort) }))
      .addSuccess(Ok(Schema.Struct({ offers: Schema.Array(RequestOfferItem) })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "List the offers on a request")
      .annotate(
        OpenApi.Description,
        "The request's owner sees every offer that is not withdrawn; a seller who offered on it sees only their own (withdrawn ones included). Until an offer is accepted, phone numbers, e-mail addresses, links and handles in its `availability`, `condition_notes` and `warranty_notes` read `***` for the owner; the seller reads their own as written."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no request has this id",
        FORBIDDEN: "the caller neither owns the request nor offered on it"
      })
  )
  .add(
    HttpApiEndpoint.get("listMine", "/offers/my")
      .setUrlParams(Schema.Struct({ status: Schema.optional(OneOf(...OfferStatus.literals)), ...PageParams }))
      .addSuccess(Ok(Schema.Struct({ offers: Schema.Array(MyOfferItem), pagination: Pagination })))
      .annotate(OpenApi.Summary, "List my offers")
      .annotate(
        OpenApi.Description,
        "The signed-in seller's offers, newest first, in every state unless `status` filters."
      )
  )
  .add(
    HttpApiEndpoint.post("accept", "/offers/:id/accept")
      .setPath(IdPath)
      .addSuccess(Ok(Schema.Struct({ deal: AcceptedDeal })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Accept an offer")
      .annotate(
        OpenApi.Description,
        "The owner of the offer's request. Atomically: the offer becomes `accepted`, the request `closed`, the other pending offers `rejected`, and a deal is created; both parties get an `offer_accepted` push. Of simultaneous accepts on one request exactly one succeeds."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller does not own the request",
        OFFER_ALREADY_ACCEPTED: "the offer was accepted already",
        OFFER_NOT_PENDING: "the offer is rejected or withdrawn",
        OFFER_EXPIRED: "the offer's `valid_until` has passed",
        REQUEST_NOT_ACTIVE: "the request is closed (another offer was accepted, or it was closed) or expired"
      })
  )
  .add(
    HttpApiEndpoint.del("withdraw", "/offers/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Withdraw my offer")
      .annotate(
        OpenApi.Description,
        "The offer's seller. A pending offer becomes `withdrawn`, the request's `offer_count` drops by one, and the seller may offer again."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller did not make the offer",
        OFFER_ALREADY_ACCEPTED: "the offer was accepted",
        OFFER_NOT_PENDING: "the offer is rejected, withdrawn or expired already"
      })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
