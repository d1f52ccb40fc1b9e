import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { StringField, snakeCaseKeys, User } from "@talab/core"
import * as Schema from "effect/Schema"
import { adminOnly, ErrorCases } from "../docs/Annotations.js"
import { ForbiddenResponse, NotFoundResponse, Ok } from "../http/Envelope.js"
import { IdPath } from "../http/Paths.js"
import { fieldProblem } from "../http/Problems.js"
import { AdminOnly, ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { DeletedFlag, SellerProfileView, shownAs, UserView } from "../http/Views.js"

/** A full E.164 number as a query parameter, compared exactly with the stored (E.164) numbers. */
const E164Param = StringField.pipe(
  Schema.pattern(/^\+[1-9][0-9]{6,14}$/, fieldProblem("invalid_phone")),
  Schema.annotations({ description: "A full E.164 number, `+` and country code included (`+966501234567`)." })
)

/** How much a user has done on the marketplace. */
export const AdminUserCounts = Schema.Struct({
  requests: Schema.Int.annotations({ description: "Buy requests they posted." }),
  offers: Schema.Int.annotations({ description: "Offers they made as a seller." }),
  deals: Schema.Int.annotations({ description: "Deals they are a party of, as buyer or seller." }),
  reports_made: Schema.Int.annotations({ description: "Reports they filed." }),
  reports_received: Schema.Int.annotations({ description: "Reports filed against them." })
})

/** A user as an admin sees them: the account, its number, its seller profile and its counts. */
export const AdminUser = Schema.Struct({
  ...UserView.pick("id", "name", "avatarUrl", "language", "isAdmin", "createdAt").fields,
  phoneNumber: shownAs(
    "phone_number",
    Schema.NullOr(User.fields.phoneNumber).annotations({ description: "Null once the account is deleted." })
  ),
  ...DeletedFlag.fields,
  ...snakeCaseKeys({ sellerProfile: Schema.NullOr(SellerProfileView) }).fields,
  counts: AdminUserCounts
})

/** Finding a user by number, and everything an admin needs to know about them. */
export class AdminUsersApi extends HttpApiGroup.make("adminUsers")
  .annotate(OpenApi.Title, "Admin: users")
  .annotate(
    OpenApi.Description,
    "Admins look a user up by phone number, with their seller profile and what they have done. Every operation answers 403 to a non-admin before any other check."
  )
  .add(
    HttpApiEndpoint.get("find", "/admin/users")
      .setUrlParams(Schema.Struct({ phone: E164Param }))
      .addSuccess(
        Ok(
          Schema.Struct({
            users: Schema.Array(AdminUser).annotations({ description: "The user with this number, or none." })
          })
        )
      )
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Find a user by phone number")
      .annotate(
        OpenApi.Description,
        `${adminOnly} \`phone\` is a full E.164 number, matched exactly (no partial search): \`users\` holds the user with it, or is empty. A deleted account has no number and is found by id only.`
      )
      .annotate(ErrorCases, { VALIDATION_ERROR: "`phone` is missing or not a full E.164 number" })
  )
  .add(
    HttpApiEndpoint.get("get", "/admin/users/:id")
      .setPath(IdPath)
      .addSuccess(Ok(AdminUser))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Get a user")
      .annotate(
        OpenApi.Description,
        `${adminOnly} The user with their number, seller profile (null without one) and counts. A deleted account is still shown, by its id, with \`deleted\` true, \`name\` and \`phone_number\` null.`
      )
      .annotate(ErrorCases, { NOT_FOUND: "no user has this id" })
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
