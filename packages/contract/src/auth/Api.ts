import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Platform, Session, SessionDevice, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage,
  UnauthorizedResponse
} from "../http/Envelope.js"
import { BodyOrNone, OneOf, Optional, Payload, StringField, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { fieldProblem } from "../http/Problems.js"
import { Authentication, BodyCheck } from "../http/Security.js"
import { entityView, shownAs, UserView } from "../http/Views.js"

const PhoneNumber = StringField
const OtpCode = StringField.pipe(Schema.pattern(/^\d{6}$/, fieldProblem("otp_format")))

/**
 * The tokens a sign-in gives: the access token for `Authorization: Bearer`, valid `expires_in` seconds (24 hours),
 * and the refresh token (30 days) that POST /auth/refresh trades for a new access token.
 */
export const TokensView = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  expires_in: Schema.Int
})

/** The device a sign-in comes from, as the app names it (shown in the user's list of sessions). */
export const SessionDeviceView = entityView(SessionDevice.fields)

/** The device a sign-in names (verify-otp's `device`): trimmed, 1 to 100 characters. */
export const SignInDevice = Payload({ platform: OneOf(...Platform.literals), name: Text(1, 100) })

/** What a sign-in answers: the user, with whether they have a seller profile, and their tokens. */
export const SignedInView = Schema.Struct({
  user: Schema.Struct({ ...UserView.fields, ...snakeCaseKeys({ hasSellerProfile: Schema.Boolean }).fields }),
  tokens: TokensView
})

/** One of the caller's sessions; the network it signed in from is shown as `approximate_ip`. */
export const SessionView = Schema.Struct({
  ...entityView(Session.fields).pick("id", "createdAt", "lastUsedAt", "device").fields,
  ipPrefix: shownAs("approximate_ip", Session.fields.ipPrefix),
  current: Schema.Boolean
})

/** Sign-in by phone number and one-time code, and the caller's sessions. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("requestOtp", "/request-otp")
      .setPayload(Payload({ phone_number: PhoneNumber }))
      .addSuccess(Ok(Schema.Struct({ expires_at: Schema.Date, message: Schema.String })))
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.post("verifyOtp", "/verify-otp")
      .setPayload(
        Payload({
          phone_number: PhoneNumber,
          otp_code: OtpCode,
          device: Optional(SignInDevice)
        })
      )
      .addSuccess(Ok(SignedInView))
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.post("refresh", "/refresh")
      .setPayload(Payload({ refresh_token: StringField }))
      .addSuccess(Ok(Schema.Struct({ access_token: Schema.String, expires_in: Schema.Int })))
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .setPayload(BodyOrNone(Payload({ device_token: Optional(Text(1, 4096)) })))
      .addSuccess(OkMessage)
      .middleware(Authentication)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/sessions")
      .addSuccess(Ok(Schema.Struct({ sessions: Schema.Array(SessionView) })))
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.del("endSession", "/sessions/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.del("endOtherSessions", "/sessions")
      .addSuccess(Ok(Schema.Struct({ ended: Schema.Int })))
      .middleware(Authentication)
  )
  .middleware(BodyCheck)
  .prefix("/auth") {}
