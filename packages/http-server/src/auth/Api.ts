import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../http/Authentication.js"
import { BodyCheck } from "../http/BodyCheck.js"
import { Ok, OkMessage, UnauthorizedResponse } from "../http/Envelope.js"
import { BodyOrNone, Optional, Payload, problemMessage, StringField, Text } from "../http/Fields.js"
import { UserView } from "../http/Views.js"

const PhoneNumber = StringField
const OtpCode = StringField.pipe(Schema.pattern(/^\d{6}$/, { message: () => problemMessage("otp_format") }))

export const TokensView = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  expires_in: Schema.Int
})

/** Sign-in by phone number and one-time code. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("requestOtp", "/request-otp")
      .setPayload(Payload({ phone_number: PhoneNumber }))
      .addSuccess(Ok(Schema.Struct({ expires_at: Schema.Date, message: Schema.String })))
  )
  .add(
    HttpApiEndpoint.post("verifyOtp", "/verify-otp")
      .setPayload(Payload({ phone_number: PhoneNumber, otp_code: OtpCode }))
      .addSuccess(
        Ok(
          Schema.Struct({
            user: Schema.Struct({ ...UserView.fields, has_seller_profile: Schema.Boolean }),
            tokens: TokensView
          })
        )
      )
      .addError(UnauthorizedResponse)
  )
  .add(
    HttpApiEndpoint.post("refresh", "/refresh")
      .setPayload(Payload({ refresh_token: StringField }))
      .addSuccess(Ok(Schema.Struct({ access_token: Schema.String, expires_in: Schema.Int })))
      .addError(UnauthorizedResponse)
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .setPayload(BodyOrNone(Payload({ device_token: Optional(Text(1, 4096)) })))
      .addSuccess(OkMessage)
      .middleware(Authentication)
  )
  .middleware(BodyCheck)
  .prefix("/auth") {}
