import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Category, ConditionPref, RequestStatus, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { FreeText, Money, OneOf, Optional, PageParams, Pagination, Payload, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"

import { Party, RequestView } from "../http/Views.js"

/** The detail view: the buyer as an object instead of buyer_id. */
export const RequestDetail = Schema.Struct({
  ...RequestView.omit("buyerId").fields,
  buyer: Party
})

/** An item of the request lists. */
export const RequestListItem = RequestView.pick(
  "id",
  "category",
  "productBrand",
  "productModel",
  "conditionPref",
  "budgetMin",
  "budgetMax",
  "locationDistrict",
  "status",
  "offerCount",
  "createdAt",
  "expiresAt"
)

/** A page of buy requests, newest first, as GET /requests and GET /requests/my answer it. */
export const RequestList = Schema.Struct({ requests: Schema.Array(RequestListItem), pagination: Pagination })

/** The condition a buyer who names none accepts. */
const ANY_CONDITION = "any" as const

const NewRequest = Payload({
  category: OneOf(...Category.literals),
  product_brand: Optional(Text(1, 100)),
  product_model: Optional(Text(1, 100)),
  // Absent or null: the one place this default is written; the OpenAPI document shows it.
  condition_pref: Schema.optionalWith(OneOf(...ConditionPref.literals).annotations({ default: ANY_CONDITION }), {
    nullable: true,
    default: () => ANY_CONDITION
  }),
  budget_min: Money,
  budget_max: Money,
  location_district: Text(1, 100),
  location_city: Optional(Text(1, 100)),
  notes: Optional(FreeText(0, 2000))
}).pipe(
  Schema.filter(
    (body, _, self) => body.budget_max >= body.budget_min || failureAt("budget_max", body, self),
    fieldProblem("budget_max_below_min")
  )
)

const StatusFilter = Schema.optional(OneOf(...RequestStatus.literals))

/** Buy requests: post, browse, read, close. */
export class RequestsApi extends HttpApiGroup.make("requests")
  .add(
    HttpApiEndpoint.post("create", "/requests")
      .setPayload(NewRequest)
      .addSuccess(Ok(RequestView), { status: 201 })
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.get("list", "/requests")
      .setUrlParams(
        Schema.Struct({
          category: Schema.optional(OneOf(...Category.literals)),
          location_city: Schema.optional(Text(1, 100)),
          status: StatusFilter,
          ...PageParams
        })
      )
      .addSuccess(Ok(RequestList))
  )
  .add(
    HttpApiEndpoint.get("listMine", "/requests/my")
      .setUrlParams(Schema.Struct({ status: StatusFilter, ...PageParams }))
      .addSuccess(Ok(RequestList))
  )
  .add(
    HttpApiEndpoint.get("get", "/requests/:id").setPath(IdPath).addSuccess(Ok(RequestDetail)).addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("close", "/requests/:id/close")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...RequestView.pick("id", "status").fields,
            ...snakeCaseKeys({ closedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .add(
    HttpApiEndpoint.put("extend", "/requests/:id/extend")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...RequestView.pick("id", "status").fields,
            ...snakeCaseKeys({ expiresAt: Schema.Date, extendedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
