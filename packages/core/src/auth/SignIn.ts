import * as Schema from "effect/Schema"
import { fieldRule, OneOf, Optional, StringField, Text } from "../shared/Fields.js"
import { Platform } from "../shared/Values.js"
import { PushToken } from "../users/Users.js"
import { OTP_LENGTH } from "./Otp.js"

/*
 * The inputs of sign-in, refresh and sign-out. A phone number is only a string here: which numbers are mobile
 * numbers is the server's to say, as it parses them.
 */

const PhoneNumber = StringField.annotations({
  jsonSchema: {
    minLength: 1,
    description: "A mobile number, best in E.164 (`+966501234567`): the server parses it for an allowed country"
  }
})

/** A one-time code as sent by SMS: {@link OTP_LENGTH} digits. */
export const OtpCode = StringField.pipe(Schema.pattern(new RegExp(`^\\d{${OTP_LENGTH}}$`), fieldRule("otp_format")))

/**
 * The device a sign-in names (shown in the user's list of sessions): its platform and a one-line name. Any other
 * value than an object is refused as one problem, and every failing field of an object is reported.
 */
export const SignInDevice = Schema.Struct({ platform: OneOf(...Platform.literals), name: Text(1, 100) }).annotations({
  parseOptions: { errors: "all" },
  ...fieldRule("must_be_object")
})

/** Asking for a sign-in code by SMS. */
export const RequestOtpInput = Schema.Struct({ phoneNumber: PhoneNumber })
export type RequestOtpInput = typeof RequestOtpInput.Type

/** Signing in with the code sent to the number, optionally naming the device. */
export const VerifyOtpInput = Schema.Struct({
  phoneNumber: PhoneNumber,
  otpCode: OtpCode,
  device: Optional(SignInDevice)
})
export type VerifyOtpInput = typeof VerifyOtpInput.Type

/** Trading a refresh token for a new access token. */
export const RefreshInput = Schema.Struct({ refreshToken: StringField })
export type RefreshInput = typeof RefreshInput.Type

/** Signing out; with `deviceToken`, that device stops receiving pushes too. */
export const LogoutInput = Schema.Struct({ deviceToken: Optional(PushToken) })
export type LogoutInput = typeof LogoutInput.Type
