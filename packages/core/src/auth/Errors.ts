import * as Data from "effect/Data"

/** The one-time code is wrong, was used already, or none was requested for the phone number. */
export class InvalidOtp extends Data.TaggedError("InvalidOtp")<{}> {
  readonly code = "INVALID_OTP" as const
}

/** The one-time code is past its 10 minutes (`OTP_TTL_MS`); the user requests a new one. */
export class OtpExpired extends Data.TaggedError("OtpExpired")<{}> {
  readonly code = "OTP_EXPIRED" as const
}

/**
 * The one-time code was tried `OTP_MAX_ATTEMPTS` times already; even the right code fails now, until a new one is
 * requested.
 */
export class OtpAttemptsExceeded extends Data.TaggedError("OtpAttemptsExceeded")<{}> {
  readonly code = "OTP_ATTEMPTS_EXCEEDED" as const
}

/** The refresh token is expired, revoked, malformed or an access token; the user signs in again. */
export class InvalidRefreshToken extends Data.TaggedError("InvalidRefreshToken")<{}> {
  readonly code = "INVALID_REFRESH_TOKEN" as const
}
