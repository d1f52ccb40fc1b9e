import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { DeleteAccountInput, DeviceRegistration, DeviceToken, ProfileChanges, snakeCaseKeys } from "@talab/core"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  Ok,
  PayloadTooLargeResponse,
  ServiceUnavailableResponse,
  UnauthorizedResponse,
  UnsupportedMediaTypeResponse
} from "../http/Envelope.js"
import { BodyOrNone, PayloadOf } from "../http/Fields.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { entityView, SellerProfileSummary, UserView } from "../http/Views.js"
import { AccountExport } from "./Export.js"

/** The largest avatar file accepted, in bytes (5 MiB); a larger one is a 413. */
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024
/*
 * The parser counts a part's headers into its size, so its cap leaves room for them; the exact 5 MiB
 * rule on the file's bytes is applied by screenAvatar.
 */
const AVATAR_PART_LIMIT = AVATAR_MAX_BYTES + 64 * 1024

/**
 * The caller's own account, as GET and PUT /users/me answer it: the user with a summary of their seller profile
 * (null without one).
 */
export const MeView = Schema.Struct({
  ...UserView.fields,
  ...snakeCaseKeys({ sellerProfile: Schema.NullOr(SellerProfileSummary) }).fields
})

/** The signed-in user's own account and devices. */
export class UsersApi extends HttpApiGroup.make("users")
  .annotate(OpenApi.Title, "Profile and devices")
  .annotate(
    OpenApi.Description,
    "The signed-in user's own profile, avatar and the device tokens that receive push notifications."
  )
  .add(
    HttpApiEndpoint.get("getMe", "/users/me")
      .addSuccess(Ok(MeView))
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Get my profile")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Answers their profile, with their seller profile when they have one."
      )
  )
  .add(
    HttpApiEndpoint.put("updateMe", "/users/me")
      .setPayload(BodyOrNone(PayloadOf(ProfileChanges)))
      .addSuccess(Ok(MeView))
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Update my profile")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Changes their name and language (`ar` or `en`, the language of their pushes). A name holding a phone number, an e-mail address, a link or a handle is refused (400 `VALIDATION_ERROR` on `name`)."
      )
      .annotate(RequestExample, { name: "Sara", language: "en" })
  )
  .add(
    HttpApiEndpoint.get("exportMe", "/users/me/export")
      .addSuccess(Ok(AccountExport))
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Export my data")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Everything the service holds about them, as one document (sent with `Content-Disposition: attachment`): profile, seller profile, sessions and push tokens (masked), requests, offers, deals, the conversations they are in and their own messages, ratings given and received, the reports they made (not those about them), alert rules, image URLs. At most 3 exports per user per hour (429 `RATE_LIMITED` past that)."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteMe", "/users/me")
      .setPayload(PayloadOf(DeleteAccountInput))
      .addSuccess(Ok(Schema.Struct({ deleted_at: Schema.Date })))
      .addError(UnauthorizedResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Delete my account")
      .annotate(
        OpenApi.Description,
        "The signed-in user, with `otp_code`: a code sent to their own number by `POST /auth/request-otp` within the last 10 minutes (3 attempts, as at sign-in). Closes their active requests, withdraws their pending offers, ends every session (tokens 401 at once, sockets closed with 4401), removes their push tokens, alert rules and files, and erases their phone number, name and avatar; their seller profile leaves the public view. The deals, ratings and messages other people hold stay, showing this user as `{id, name: null, deleted: true}`. The number can sign up again as a new user. Administrators cannot delete their account here (an operator runs `talab users delete`)."
      )
      .annotate(ErrorCases, {
        INVALID_OTP: "the code is wrong, or was used already (a sign-in's code cannot delete)",
        OTP_EXPIRED: "the code is older than 10 minutes, or none was sent",
        OTP_ATTEMPTS_EXCEEDED: "3 wrong attempts: request a new code",
        FORBIDDEN: "the caller is an administrator",
        OPEN_DEALS_EXIST:
          "a deal of theirs, as buyer or seller, is still accepted (neither completed nor cancelled): nothing changed"
      })
      .annotate(RequestExample, { otp_code: "123456" })
  )
  .add(
    HttpApiEndpoint.post("uploadAvatar", "/users/me/avatar")
      .setPayload(
        HttpApiSchema.MultipartStream(Schema.Struct({ avatar: Multipart.SingleFileSchema }), {
          maxFileSize: Option.some(AVATAR_PART_LIMIT),
          maxParts: Option.some(5)
        })
      )
      .addSuccess(Ok(Schema.Struct({ avatar_url: Schema.String })))
      .addError(PayloadTooLargeResponse)
      .addError(UnsupportedMediaTypeResponse)
      .addError(ServiceUnavailableResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      // No BodyCheck: a multipart body, with its own limit (http-server's RequestPipeline) and content checks.
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Upload my avatar")
      .annotate(
        OpenApi.Description,
        "The signed-in user. A JPEG, PNG or WebP image (told by its content) of at most 5 MiB in the multipart field `avatar`; it is re-encoded without its metadata and replaces the previous avatar."
      )
      .annotate(ErrorCases, {
        PAYLOAD_TOO_LARGE: "the image is over 5 MiB (a chunked body too, past 6 MiB)",
        UNSUPPORTED_MEDIA_TYPE: "the file is not a JPEG, PNG or WebP image",
        VALIDATION_ERROR:
          "on `avatar`, told from the header before any pixel is decoded: a side over 8,192 px, one side over 20 times the other, over 40 megapixels, or a decoding too heavy (pixels × channels × bytes per sample, twice for interlaced or progressive, over 100 million); or a decoding stopped after 5 s; or an image that cannot be decoded"
      })
  )
  .add(
    HttpApiEndpoint.post("registerDevice", "/device-tokens")
      .setPayload(PayloadOf(DeviceRegistration))
      .addSuccess(Ok(entityView(DeviceToken.fields).pick("id", "platform", "createdAt")), { status: 201 })
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Register a device for push notifications")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Stores the device's FCM or APNs token; a token registered before moves to this user."
      )
      .annotate(RequestExample, { push_token: "fcm-device-token-123", platform: "android" })
  ) {}
