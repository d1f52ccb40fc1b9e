import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { FreeText, Optional, PageParams, Pagination, Payload, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { AdminOnly, ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { SellerProfileView, UserView } from "../http/Views.js"
import { SellerTrust } from "../trust/View.js"

/**
 * The seller profile POST /seller-profiles answers with: the new application, pending until an administrator decides.
 */
export const SellerProfileCreated = SellerProfileView.pick(
  "id",
  "userId",
  "status",
  "businessName",
  "locationDistrict",
  "createdAt"
)

/** What anybody may see of an approved seller. */
export const PublicSellerProfile = Schema.Struct({
  ...SellerProfileView.pick("id", "businessName", "locationDistrict", "bio", "ratingAvg", "ratingCount", "createdAt")
    .fields,
  trust: SellerTrust
})

/** An application as the admin reviews it, with its applicant. */
export const PendingSellerProfile = Schema.Struct({
  ...SellerProfileView.omit("approvedAt").fields,
  user: UserView.pick("id", "phoneNumber", "name")
})

/** Applying to sell, and the public face of approved sellers (no token needed). */
export class SellerProfilesApi extends HttpApiGroup.make("sellerProfiles")
  .add(
    HttpApiEndpoint.post("apply", "/seller-profiles")
      .setPayload(
        Payload({
          business_name: Text(2, 120),
          location_district: Text(1, 100),
          location_city: Optional(Text(1, 100)),
          bio: Optional(FreeText(0, 2000))
        })
      )
      .addSuccess(Ok(SellerProfileCreated), { status: 201 })
      .addError(BusinessRuleResponse)
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.get("getPublic", "/seller-profiles/:id")
      .setPath(IdPath)
      .addSuccess(Ok(PublicSellerProfile))
      .addError(NotFoundResponse)
  ) {}

/** The admin's review of seller applications. */
export class AdminSellerProfilesApi extends HttpApiGroup.make("adminSellerProfiles")
  .add(
    HttpApiEndpoint.get("listPending", "/pending")
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(Ok(Schema.Struct({ profiles: Schema.Array(PendingSellerProfile), pagination: Pagination })))
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.put("approve", "/:id/approve")
      .setPath(IdPath)
      .addSuccess(
        Ok(
          Schema.Struct({
            ...SellerProfileView.pick("id", "status").fields,
            ...snakeCaseKeys({ approvedAt: Schema.Date }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .add(
    HttpApiEndpoint.put("reject", "/:id/reject")
      .setPath(IdPath)
      .addSuccess(Ok(SellerProfileView.pick("id", "status")))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication)
  .prefix("/admin/seller-profiles") {}
