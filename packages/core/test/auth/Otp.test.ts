import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  attemptOtp,
  InvalidOtp,
  issueOtp,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MS,
  OtpAttemptsExceeded,
  type OtpChallenge,
  OtpExpired,
  type OtpVerdict,
  otpResult
} from "../../src/index.js"
import { at, T0 } from "../support/helpers.js"

const PHONE = "+201001234567"
const fresh = () => issueOtp(PHONE, "hash-of-123456", T0)

const challengeOf = (verdict: OtpVerdict): OtpChallenge => {
  if (verdict.challenge === null) throw new Error("expected a challenge")
  return verdict.challenge
}
const errorOf = (verdict: OtpVerdict) => {
  if (verdict._tag !== "Rejected") throw new Error("expected Rejected")
  return verdict.error
}

describe("issueOtp", () => {
  it("issues an unused challenge with no attempts that expires 10 minutes later", () => {
    expect(OTP_TTL_MS).toBe(600_000)
    expect(OTP_MAX_ATTEMPTS).toBe(3)
    expect(fresh()).toEqual({
      phoneNumber: PHONE,
      codeHash: "hash-of-123456",
      expiresAt: at(600_000),
      attempts: 0,
      consumedAt: null
    })
  })
})

describe("attemptOtp", () => {
  it("accepts the right code, counts the attempt and consumes the challenge", () => {
    const verdict = attemptOtp(fresh(), true, at(1_000))
    expect(verdict._tag).toBe("Accepted")
    expect(verdict.challenge).toEqual({ ...fresh(), attempts: 1, consumedAt: at(1_000) })
  })

  it("a consumed code is refused with InvalidOtp afterwards, even when right", () => {
    const used = challengeOf(attemptOtp(fresh(), true, at(1_000)))
    const again = attemptOtp(used, true, at(2_000))
    expect(again._tag).toBe("Rejected")
    expect(errorOf(again)).toBeInstanceOf(InvalidOtp)
    expect(again.challenge).toEqual(used)
  })

  it("a wrong code is refused with InvalidOtp (401) and counted", () => {
    const verdict = attemptOtp(fresh(), false, at(1_000))
    const error = errorOf(verdict)
    expect(error).toBeInstanceOf(InvalidOtp)
    expect(error.code).toBe("INVALID_OTP")
    expect(challengeOf(verdict).attempts).toBe(1)
    expect(challengeOf(verdict).consumedAt).toBeNull()
  })

  it("the right code on the 2nd and 3rd attempt is still accepted", () => {
    const one = challengeOf(attemptOtp(fresh(), false, at(1)))
    expect(attemptOtp(one, true, at(2))._tag).toBe("Accepted")
    const two = challengeOf(attemptOtp(one, false, at(2)))
    expect(two.attempts).toBe(2)
    const third = attemptOtp(two, true, at(3))
    expect(third._tag).toBe("Accepted")
    expect(challengeOf(third).attempts).toBe(3)
  })

  it("the 4th attempt fails with OtpAttemptsExceeded (401) even with the right code", () => {
    let challenge = fresh()
    for (let i = 0; i < 3; i++) challenge = challengeOf(attemptOtp(challenge, false, at(i + 1)))
    expect(challenge.attempts).toBe(3)
    const fourth = attemptOtp(challenge, true, at(10))
    expect(fourth._tag).toBe("Rejected")
    const error = errorOf(fourth)
    expect(error).toBeInstanceOf(OtpAttemptsExceeded)
    expect(error.code).toBe("OTP_ATTEMPTS_EXCEEDED")
    expect(challengeOf(fourth)).toEqual(challenge)
  })

  it("an expired code fails with OtpExpired (401) even when right, at exactly the expiry and after it", () => {
    for (const now of [at(OTP_TTL_MS), at(OTP_TTL_MS + 1), at(OTP_TTL_MS * 5)]) {
      const verdict = attemptOtp(fresh(), true, now)
      const error = errorOf(verdict)
      expect(error).toBeInstanceOf(OtpExpired)
      expect(error.code).toBe("OTP_EXPIRED")
      // an expired attempt is not counted
      expect(challengeOf(verdict).attempts).toBe(0)
    }
  })

  it("one millisecond before expiry the right code is accepted", () => {
    expect(attemptOtp(fresh(), true, at(OTP_TTL_MS - 1))._tag).toBe("Accepted")
  })

  it("without any code requested the attempt fails with InvalidOtp", () => {
    const verdict = attemptOtp(null, true, T0)
    expect(verdict._tag).toBe("Rejected")
    expect(verdict.challenge).toBeNull()
    expect(errorOf(verdict)).toBeInstanceOf(InvalidOtp)
  })
})

describe("otpResult", () => {
  it("maps Accepted to Right(challenge) and Rejected to Left(error)", () => {
    const accepted = attemptOtp(fresh(), true, at(1))
    const ok = otpResult(accepted)
    expect(Either.isRight(ok) && ok.right).toEqual(accepted.challenge)
    const rejected = otpResult(attemptOtp(null, true, at(1)))
    expect(Either.isLeft(rejected) && rejected.left).toBeInstanceOf(InvalidOtp)
  })
})
