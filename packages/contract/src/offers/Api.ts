import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { OfferStatus } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage
} from "../http/Envelope.js"
import {
  DateTimeField,
  FreeText,
  Money,
  OneOf,
  Optional,
  PageParams,
  Pagination,
  Payload,
  Text,
  UuidField
} from "../http/Fields.js"
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
  .add(
    HttpApiEndpoint.post("create", "/offers")
      .setPayload(
        Payload({
          request_id: UuidField,
          price: Money,
          availability: Text(1, 200),
          condition_notes: Optional(FreeText(0, 2000)),
          warranty_notes: Optional(FreeText(0, 2000)),
          valid_until: Optional(DateTimeField)
        })
      )
      .addSuccess(Ok(OfferView), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.get("listForRequest", "/requests/:id/offers")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({ sort: Schema.optional(OfferSort) }))
      .addSuccess(Ok(Schema.Struct({ offers: Schema.Array(RequestOfferItem) })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.get("listMine", "/offers/my")
      .setUrlParams(Schema.Struct({ status: Schema.optional(OneOf(...OfferStatus.literals)), ...PageParams }))
      .addSuccess(Ok(Schema.Struct({ offers: Schema.Array(MyOfferItem), pagination: Pagination })))
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
  )
  .add(
    HttpApiEndpoint.del("withdraw", "/offers/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
