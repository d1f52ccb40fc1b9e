import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { RejectInput, SellerApplication, SellerStatusChangeInput, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import { adminOnly, ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { BodyOrNone, PageParams, Pagination, PayloadOf } from "../http/Fields.js"
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
  .annotate(OpenApi.Title, "Seller profiles")
  .annotate(
    OpenApi.Description,
    "A user becomes a seller by applying with a business profile; an admin approves it. Approved profiles are public."
  )
  .add(
    HttpApiEndpoint.post("apply", "/seller-profiles")
      .setPayload(PayloadOf(SellerApplication))
      .addSuccess(Ok(SellerProfileCreated), { status: 201 })
      .addError(BusinessRuleResponse)
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Apply to become a seller")
      .annotate(
        OpenApi.Description,
        "The signed-in user without a seller profile. Creates their profile as `pending`; an admin approves it before they can offer. A `business_name` or `bio` holding a phone number, an e-mail address, a link or a handle is refused (400 `VALIDATION_ERROR` naming the field)."
      )
      .annotate(ErrorCases, { SELLER_PROFILE_EXISTS: "the user already has a seller profile, whatever its state" })
      .annotate(RequestExample, {
        business_name: "Rawdah Mobiles",
        location_district: "Al Rawdah",
        location_city: "Riyadh",
        bio: "New and used phones since 2015."
      })
  )
  .add(
    HttpApiEndpoint.get("getPublic", "/seller-profiles/:id")
      .setPath(IdPath)
      .addSuccess(Ok(PublicSellerProfile))
      .addError(NotFoundResponse)
      .annotate(OpenApi.Summary, "Get a seller's public profile")
      .annotate(
        OpenApi.Description,
        "Anyone, without a token. Approved profiles only, with their rating. Counted per client network (an IPv4 address or an IPv6 /64) with the API documents and `/docs`: `RATE_LIMIT_PUBLIC_PER_MINUTE` (120) a minute."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no profile has this id, or it is not approved",
        RATE_LIMITED: "more than `RATE_LIMIT_PUBLIC_PER_MINUTE` (120) public reads a minute from this network"
      })
  ) {}

/** The admin's review of seller applications, and suspending or reinstating sellers. */
export class AdminSellerProfilesApi extends HttpApiGroup.make("adminSellerProfiles")
  .annotate(OpenApi.Title, "Admin: seller applications")
  .annotate(
    OpenApi.Description,
    "Admins review seller applications. Every operation answers 403 to a non-admin before any other check."
  )
  .add(
    HttpApiEndpoint.get("listPending", "/pending")
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(Ok(Schema.Struct({ profiles: Schema.Array(PendingSellerProfile), pagination: Pagination })))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "List pending seller applications")
      .annotate(
        OpenApi.Description,
        `${adminOnly} The applications waiting for review, newest first, a page at a time.`
      )
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
      .annotate(OpenApi.Summary, "Approve a seller application")
      .annotate(
        OpenApi.Description,
        `${adminOnly} The profile becomes \`approved\`: its user can make offers. Recorded in the audit log (\`seller_profile.approve\`).`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no profile has this id",
        SELLER_PROFILE_NOT_PENDING: "the profile is not pending"
      })
  )
  .add(
    HttpApiEndpoint.put("reject", "/:id/reject")
      .setPath(IdPath)
      .setPayload(BodyOrNone(PayloadOf(RejectInput)))
      .addSuccess(Ok(SellerProfileView.pick("id", "status", "rejectionReason")))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Reject a seller application")
      .annotate(
        OpenApi.Description,
        `${adminOnly} The profile becomes \`rejected\`. The body is optional: a \`reason\` (1 to 500 characters) is shown to the applicant on \`GET /users/me\` (\`seller_profile.rejection_reason\`). The applicant gets a \`seller_profile_rejected\` push, quoting the reason when there is one. Recorded in the audit log (\`seller_profile.reject\`).`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no profile has this id",
        SELLER_PROFILE_NOT_PENDING: "the profile is not pending"
      })
      .annotate(RequestExample, { reason: "The business name does not match the commercial registration." })
  )
  .add(
    HttpApiEndpoint.put("suspend", "/:id/suspend")
      .setPath(IdPath)
      .setPayload(PayloadOf(SellerStatusChangeInput))
      .addSuccess(
        Ok(
          Schema.Struct({
            ...SellerProfileView.pick("id", "status").fields,
            ...snakeCaseKeys({
              rejectedOfferIds: Schema.Array(Schema.UUID).annotations({
                description: "The seller's offers that were pending and are now `rejected`."
              })
            }).fields
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Suspend a seller")
      .annotate(
        OpenApi.Description,
        `${adminOnly} An \`approved\` profile becomes \`suspended\`, as a report resolved with \`suspend_seller\` does: the seller's pending offers are \`rejected\` in the same transaction, and they can make no offer until reinstated. \`reason\` (1 to 500 characters) is required and kept in the audit log (\`seller_profile.suspend\`).`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no profile has this id",
        SELLER_PROFILE_NOT_APPROVED: "the profile is not approved (pending, rejected or suspended already)"
      })
      .annotate(RequestExample, { reason: "Three buyers reported fake phones." })
  )
  .add(
    HttpApiEndpoint.put("reinstate", "/:id/reinstate")
      .setPath(IdPath)
      .setPayload(PayloadOf(SellerStatusChangeInput))
      .addSuccess(Ok(SellerProfileView.pick("id", "status")))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .annotate(OpenApi.Summary, "Reinstate a suspended seller")
      .annotate(
        OpenApi.Description,
        `${adminOnly} A \`suspended\` profile becomes \`approved\` again; the offers its suspension rejected stay rejected. \`reason\` (1 to 500 characters) is required and kept in the audit log (\`seller_profile.reinstate\`).`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no profile has this id",
        SELLER_PROFILE_NOT_SUSPENDED: "the profile is not suspended"
      })
      .annotate(RequestExample, { reason: "The reports were settled." })
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication)
  .prefix("/admin/seller-profiles") {}
