import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { DeviceRegistration, DeviceToken, ProfileChanges, snakeCaseKeys } from "@talab/core"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
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
