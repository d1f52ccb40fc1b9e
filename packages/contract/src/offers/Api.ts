import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  AcceptInput,
  CounterInput,
  OfferCounter,
  OfferEvent,
  OfferInput,
  OfferRevision,
  OfferStatus,
  snakeCaseKeys
} from "@talab/core"
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
import { BodyOrNone, OneOf, PageParams, Pagination, PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { DealView, entityView, OfferView, Party, RequestView, SellerProfileView } from "../http/Views.js"
import { Photos } from "../images/View.js"
import { SellerTrust } from "../trust/View.js"

/** A counter of the buyer's, as the counter call answers it. */
export const CounterView = entityView(OfferCounter.fields).pick("id", "offerId", "price", "note", "createdAt")

/** A counter as an offer shows it. */
export const CounterOnOffer = CounterView.pick("price", "note", "createdAt")

/** The counter on the table, as an offer shows it. */
export const OfferCounterField = snakeCaseKeys({
  counter: Schema.NullOr(CounterOnOffer).annotations({
    description:
      "The buyer's last counter (POST /offers/{id}/counter); null when there is none, or the seller revised the offer since"
  })
})

/** An offer with the counter on the table. */
export const BargainOfferView = Schema.Struct({ ...OfferView.fields, ...OfferCounterField.fields, photos: Photos })

/** One line of an offer's history. */
export const OfferHistoryEvent = entityView(OfferEvent.fields).pick("type", "price", "by", "revision", "createdAt")

/** An offer of the offers-of-a-request list: the seller as an object instead of seller_id. */
export const RequestOfferItem = Schema.Struct({
  ...OfferView.omit("sellerId").fields,
  ...OfferCounterField.fields,
  seller: Schema.Struct({
    ...Party.fields,
    ...SellerProfileView.pick("ratingAvg", "ratingCount", "locationDistrict").fields,
    trust: SellerTrust
  }),
  photos: Photos
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
  ...OfferView.pick("price", "revision", "status", "createdAt", "validUntil").fields,
  ...OfferCounterField.fields,
  photos: Photos
})

/** The deal an accept makes. */
export const AcceptedDeal = DealView.pick("id", "requestId", "offerId", "buyerId", "sellerId", "status", "createdAt")

/** Offers: make, list, bargain (counter, revise, history), accept, withdraw. */
export class OffersApi extends HttpApiGroup.make("offers")
  .annotate(OpenApi.Title, "Offers")
  .annotate(
    OpenApi.Description,
    "Approved sellers offer on active requests; buyer and seller may bargain (the buyer counters, the seller revises); the buyer accepts one (which closes the request and opens a deal), naming the revision they saw if they wish, and the seller may withdraw a pending one."
  )
  .add(
    HttpApiEndpoint.post("create", "/offers")
      .setPayload(PayloadOf(OfferInput))
      .addSuccess(OkWithMessage(BargainOfferView), { status: 201 })
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
      .setPayload(BodyOrNone(PayloadOf(AcceptInput)))
      .addSuccess(Ok(Schema.Struct({ deal: AcceptedDeal })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Accept an offer")
      .annotate(
        OpenApi.Description,
        "The owner of the offer's request. Atomically: the offer becomes `accepted`, the request `closed`, the other pending offers `rejected`, and a deal is created at the offer's price and revision; both parties get an `offer_accepted` push. Of simultaneous accepts on one request exactly one succeeds. With `expected_revision` (the offer's `revision` the buyer saw), an offer the seller revised since is not accepted (422 `OFFER_CHANGED`, `details.revision` holding its current revision), so the price accepted is always one the buyer saw; without a body, or without the field, the offer is accepted as it stands."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller does not own the request",
        OFFER_ALREADY_ACCEPTED: "the offer was accepted already",
        OFFER_NOT_PENDING: "the offer is rejected or withdrawn",
        OFFER_EXPIRED: "the offer's `valid_until` has passed",
        OFFER_CHANGED: "`expected_revision` is not the offer's revision: the seller revised it since",
        REQUEST_NOT_ACTIVE: "the request is closed (another offer was accepted, or it was closed) or expired"
      })
      .annotate(RequestExample, { expected_revision: 2 })
  )
  .add(
    HttpApiEndpoint.post("counter", "/offers/:id/counter")
      .setPath(IdPath)
      .setPayload(PayloadOf(CounterInput))
      .addSuccess(Ok(CounterView), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Counter an offer")
      .annotate(
        OpenApi.Description,
        "The owner of the offer's request proposes a price on a pending offer of an active request, with an optional note (up to 500 characters). The offer keeps its `price` and `revision` and shows the counter as `counter` (a later counter replaces it; a revision clears it); at most 3 counters per offer. The counter is posted to the offer's conversation as a message of kind `counter` and the seller gets an `offer_countered` push."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller does not own the offer's request",
        REQUEST_NOT_ACTIVE: "the request is closed or expired",
        OFFER_NOT_PENDING: "the offer is accepted, rejected, withdrawn or expired",
        COUNTER_LIMIT_REACHED: "the offer was countered 3 times already"
      })
      .annotate(RequestExample, { price: 2800, note: "Would you take 2800 with the charger?" })
  )
  .add(
    HttpApiEndpoint.patch("revise", "/offers/:id")
      .setPath(IdPath)
      .setPayload(PayloadOf(OfferRevision))
      .addSuccess(Ok(BargainOfferView))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Revise my offer")
      .annotate(
        OpenApi.Description,
        "The offer's seller changes a pending offer: any of `price`, `availability`, `condition_notes` and `warranty_notes` (a note sent as null is cleared), at least one. The offer's `revision` goes up by one and its `counter` is cleared. The revision is posted to the offer's conversation as a message of kind `revision` and the buyer gets an `offer_revised` push."
      )
      .annotate(ErrorCases, {
        VALIDATION_ERROR: "a field is invalid, or the body has none of the fields (`details.body`)",
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller did not make the offer",
        OFFER_NOT_PENDING: "the offer is accepted, rejected, withdrawn or expired, or its request is no longer active"
      })
      .annotate(RequestExample, { price: 2900 })
  )
  .add(
    HttpApiEndpoint.get("history", "/offers/:id/history")
      .setPath(IdPath)
      .addSuccess(Ok(Schema.Struct({ events: Schema.Array(OfferHistoryEvent) })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "An offer's history")
      .annotate(
        OpenApi.Description,
        "The owner of the offer's request and the offer's seller. What happened to the offer, oldest first: made, countered (with the counter's price), revised, and accepted, rejected or withdrawn (at the price and revision it ended with)."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no offer has this id",
        FORBIDDEN: "the caller neither owns the offer's request nor made the offer"
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
