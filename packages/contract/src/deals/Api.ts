import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Category, DealStatus, OfferStatus } from "@talab/core"
import * as Schema from "effect/Schema"
import { BusinessRuleResponse, ForbiddenResponse, NotFoundResponse, Ok } from "../http/Envelope.js"
import { FreeText, OneOf, Optional, PageParams, Pagination, Payload, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"

const Nullable = Schema.NullOr(Schema.String)
const Party = Schema.Struct({ id: Schema.UUID, name: Nullable })

/** An item of the caller's deals. */
export const DealListItem = Schema.Struct({
  id: Schema.UUID,
  status: DealStatus,
  created_at: Schema.Date,
  request: Schema.Struct({ id: Schema.UUID, product_brand: Nullable, product_model: Nullable }),
  offer: Schema.Struct({ id: Schema.UUID, price: Schema.Number }),
  buyer: Party,
  seller: Schema.Struct({ ...Party.fields, rating_avg: Schema.Number })
})

/** A deal as its parties see it. */
export const DealDetail = Schema.Struct({
  id: Schema.UUID,
  status: DealStatus,
  conversation_id: Schema.UUID,
  created_at: Schema.Date,
  completed_at: Schema.NullOr(Schema.Date),
  cancelled_at: Schema.NullOr(Schema.Date),
  cancel_reason: Nullable,
  cancel_description: Nullable,
  request: Schema.Struct({
    id: Schema.UUID,
    category: Category,
    product_brand: Nullable,
    product_model: Nullable,
    budget_min: Schema.Number,
    budget_max: Schema.Number,
    location_district: Schema.String,
    location_city: Nullable
  }),
  offer: Schema.Struct({
    id: Schema.UUID,
    price: Schema.Number,
    availability: Schema.String,
    condition_notes: Nullable,
    warranty_notes: Nullable,
    status: OfferStatus
  }),
  buyer: Party,
  seller: Schema.Struct({ ...Party.fields, rating_avg: Schema.Number, rating_count: Schema.Int })
})

export const DealRole = Schema.Literal("buyer", "seller")
export type DealRole = typeof DealRole.Type

/** Deals: the caller's list, one deal, complete and cancel. */
export class DealsApi extends HttpApiGroup.make("deals")
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
  )
  .add(
    HttpApiEndpoint.get("get", "/deals/:id")
      .setPath(IdPath)
      .addSuccess(Ok(DealDetail))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.put("complete", "/deals/:id/complete")
      .setPath(IdPath)
      .addSuccess(Ok(Schema.Struct({ id: Schema.UUID, status: DealStatus, completed_at: Schema.Date })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .add(
    HttpApiEndpoint.put("cancel", "/deals/:id/cancel")
      .setPath(IdPath)
      .setPayload(Payload({ reason: Text(1, 200), description: Optional(FreeText(0, 2000)) }))
      .addSuccess(Ok(Schema.Struct({ id: Schema.UUID, status: DealStatus, cancelled_at: Schema.Date })))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
