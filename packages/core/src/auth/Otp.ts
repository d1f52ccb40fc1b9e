import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidOtp, OtpAttemptsExceeded, OtpExpired } from "./Errors.js"

/** How long a one-time code can be used after it is issued, in milliseconds (10 minutes). */
export const OTP_TTL_MS = 10 * 60 * 1000
/**
 * How many verification attempts one code allows, the right one included; the next fails with {@link
 * OtpAttemptsExceeded}.
 */
export const OTP_MAX_ATTEMPTS = 3
/** How many digits a one-time code has. */
export const OTP_LENGTH = 6

/** The one code outstanding for a phone number. Only a hash of the code is kept. */
export const OtpChallenge = Schema.Struct({
  phoneNumber: Schema.String,
  codeHash: Schema.String,
  expiresAt: Schema.DateFromSelf,
  attempts: Schema.Int,
  consumedAt: Schema.NullOr(Schema.DateFromSelf)
})
export interface OtpChallenge extends Schema.Schema.Type<typeof OtpChallenge> {}

/**
 * A new code's challenge for a phone number, given the code's hash: no attempts yet, expiring {@link OTP_TTL_MS} from
 * `now`.
 */
export const issueOtp = (phoneNumber: string, codeHash: string, now: Date): OtpChallenge => ({
  phoneNumber,
  codeHash,
  expiresAt: new Date(now.getTime() + OTP_TTL_MS),
  attempts: 0,
  consumedAt: null
})

/**
 * Whether a challenge's code can still sign in: not used, attempts left, not expired. While it can, a new request
 * re-sends that code rather than replacing it, so nobody else's requests can take it from the owner.
 */
export const isOtpLive = (challenge: OtpChallenge, now: Date): boolean =>
  challenge.consumedAt === null &&
  challenge.attempts < OTP_MAX_ATTEMPTS &&
  challenge.expiresAt.getTime() > now.getTime()

/**
 * The outcome of one verification attempt: `Accepted` with the consumed challenge, or `Rejected` with its error and
 * the challenge to save (its attempt counted), or null when there was none.
 */
export type OtpVerdict =
  | { readonly _tag: "Accepted"; readonly challenge: OtpChallenge }
  | {
      readonly _tag: "Rejected"
      readonly challenge: OtpChallenge | null
      readonly error: InvalidOtp | OtpExpired | OtpAttemptsExceeded
    }

/**
 * One verification attempt. Every attempt counts, the right code included, so the fourth attempt on a
 * code fails even when it is right. A used code is as good as none.
 */
export const attemptOtp = (challenge: OtpChallenge | null, codeMatches: boolean, now: Date): OtpVerdict => {
  if (challenge === null || challenge.consumedAt !== null)
    return { _tag: "Rejected", challenge, error: new InvalidOtp() }
  if (challenge.attempts >= OTP_MAX_ATTEMPTS) return { _tag: "Rejected", challenge, error: new OtpAttemptsExceeded() }
  if (challenge.expiresAt.getTime() <= now.getTime()) return { _tag: "Rejected", challenge, error: new OtpExpired() }
  const counted = { ...challenge, attempts: challenge.attempts + 1 }
  return codeMatches
    ? { _tag: "Accepted", challenge: { ...counted, consumedAt: now } }
    : { _tag: "Rejected", challenge: counted, error: new InvalidOtp() }
}

/** Convenience for callers that want an Either. */
export const otpResult = (verdict: OtpVerdict) =>
  verdict._tag === "Accepted" ? Either.right(verdict.challenge) : Either.left(verdict.error)
