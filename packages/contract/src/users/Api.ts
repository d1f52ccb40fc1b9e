import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import { DeviceToken, Language, Platform, snakeCaseKeys } from "@talab/core"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  Ok,
  PayloadTooLargeResponse,
  ServiceUnavailableResponse,
  UnauthorizedResponse,
  UnsupportedMediaTypeResponse
} from "../http/Envelope.js"
import { BodyOrNone, OneOf, Optional, Payload, Text } from "../http/Fields.js"
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
  .add(
    HttpApiEndpoint.get("getMe", "/users/me")
      .addSuccess(Ok(MeView))
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.put("updateMe", "/users/me")
      .setPayload(
        BodyOrNone(
          Payload({
            name: Optional(Text(1, 100)),
            language: Optional(OneOf(...Language.literals))
          })
        )
      )
      .addSuccess(Ok(MeView))
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
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
  )
  .add(
    HttpApiEndpoint.post("registerDevice", "/device-tokens")
      .setPayload(Payload({ platform: OneOf(...Platform.literals), push_token: Text(1, 4096) }))
      .addSuccess(Ok(entityView(DeviceToken.fields).pick("id", "platform", "createdAt")), { status: 201 })
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .middleware(BodyCheck)
      .middleware(ApiRateLimit)
      .middleware(Authentication)
  ) {}
