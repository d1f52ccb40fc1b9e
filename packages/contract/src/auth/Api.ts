import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  LogoutInput,
  RefreshInput,
  RequestOtpInput,
  Session,
  SessionDevice,
  snakeCaseKeys,
  VerifyOtpInput
} from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage,
  OkWithMessage,
  UnauthorizedResponse
} from "../http/Envelope.js"
import { BodyOrNone, PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { Authentication, BodyCheck } from "../http/Security.js"
import { entityView, shownAs, UserView } from "../http/Views.js"

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
  .annotate(OpenApi.Title, "Sign-in")
  .annotate(
    OpenApi.Description,
    "Phone sign-in with a one-time code sent by SMS, token refresh, sign-out, and the sessions a user can see and end. The access token (JWT, 24 hours) goes in `Authorization: Bearer …`; the refresh token (30 days) is exchanged at `/auth/refresh`."
  )
  .add(
    HttpApiEndpoint.post("requestOtp", "/request-otp")
      .setPayload(PayloadOf(RequestOtpInput))
      .addSuccess(Ok(Schema.Struct({ expires_at: Schema.Date, message: Schema.String })))
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Send a sign-in code by SMS")
      .annotate(
        OpenApi.Description,
        "Anyone may call it. Sends a 6-digit code, valid for 10 minutes, to the mobile number (international format, with its `+country` code) of a country the server sends codes to (`SMS_ALLOWED_COUNTRIES`, by default the six Gulf states). While the number's code is still valid and has attempts left, the same code is sent again (with its first expiry), so nobody else's requests can replace the code its owner received; otherwise a new code replaces it. At most 3 codes per number every 10 minutes, and the server's hourly SMS budgets per client network and overall."
      )
      .annotate(ErrorCases, {
        VALIDATION_ERROR:
          "`phone_number` is not a mobile number in international format, or is one of a country codes are not sent to",
        RATE_LIMITED:
          "more than 3 codes for this number in 10 minutes, too many auth calls from this network (an IPv4 address or an IPv6 /64), or the hourly SMS budget of this network (`SMS_MAX_PER_NETWORK_PER_HOUR`) or of the server (`SMS_MAX_PER_HOUR`) is spent"
      })
      .annotate(RequestExample, { phone_number: "+966501234567" })
  )
  .add(
    HttpApiEndpoint.post("verifyOtp", "/verify-otp")
      .setPayload(PayloadOf(VerifyOtpInput))
      .addSuccess(Ok(SignedInView))
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Sign in with the code")
      .annotate(
        OpenApi.Description,
        "Anyone may call it. Checks the code sent to the phone number; the first sign-in creates the user. Answers the user and a new session's tokens. A code allows 3 attempts. The optional `device` (`platform`: ios, android or web; `name`: one line, 1-100 characters) names the session in `GET /auth/sessions`."
      )
      .annotate(ErrorCases, {
        INVALID_OTP: "the code is wrong",
        OTP_EXPIRED: "the code is older than 10 minutes, or none was sent",
        OTP_ATTEMPTS_EXCEEDED: "3 wrong attempts: request a new code"
      })
      .annotate(RequestExample, {
        phone_number: "+966501234567",
        otp_code: "123456",
        device: { platform: "ios", name: "Sara's iPhone" }
      })
  )
  .add(
    HttpApiEndpoint.post("refresh", "/refresh")
      .setPayload(PayloadOf(RefreshInput))
      .addSuccess(Ok(Schema.Struct({ access_token: Schema.String, expires_in: Schema.Int })))
      .addError(UnauthorizedResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Get a new access token")
      .annotate(
        OpenApi.Description,
        "Anyone holding a refresh token may call it. Answers a new access token; the refresh token stays valid until it expires or the session signs out."
      )
      .annotate(ErrorCases, {
        INVALID_REFRESH_TOKEN: "the refresh token is unknown, expired, or its session signed out"
      })
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .setPayload(BodyOrNone(PayloadOf(LogoutInput)))
      .addSuccess(OkMessage)
      .middleware(Authentication)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Sign out")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Ends the session of the access token (its refresh token stops working and its WebSockets close with 4401). With `device_token`, that device stops receiving pushes. Counts toward the auth rate limit."
      )
      .annotate(RequestExample, { device_token: "fcm-device-token-123" })
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/sessions")
      .addSuccess(Ok(Schema.Struct({ sessions: Schema.Array(SessionView) })))
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "List my sessions")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Answers their live sessions (not ended, not expired), newest first: when each signed in and was last used (refreshed at most once a minute, and at every token refresh), the device named at sign-in (null when none was), the network it signed in from (`approximate_ip`: an IPv4 /24 or an IPv6 /48, never the address), and `current: true` on the caller's own. Counts toward the auth rate limit."
      )
  )
  .add(
    HttpApiEndpoint.del("endSession", "/sessions/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "End one of my sessions")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Ends one of their live sessions (the current one too, like logout): its access and refresh tokens answer 401 at once on every instance, its WebSockets close with 4401, and the push tokens registered under it are removed. Counts toward the auth rate limit."
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no live session of the caller has this id (another user's, ended, expired or unknown)"
      })
  )
  .add(
    HttpApiEndpoint.del("endOtherSessions", "/sessions")
      .addSuccess(OkWithMessage(Schema.Struct({ ended: Schema.Int })))
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "End all my other sessions")
      .annotate(
        OpenApi.Description,
        "The signed-in user. Ends every live session of theirs except the caller's own, as `DELETE /auth/sessions/{id}` ends one; answers how many it ended (`ended`, 0 when there were none). Counts toward the auth rate limit."
      )
  )
  .middleware(BodyCheck)
  .prefix("/auth") {}
