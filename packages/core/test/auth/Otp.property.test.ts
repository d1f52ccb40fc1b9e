import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { attemptOtp, issueOtp, OTP_MAX_ATTEMPTS, OTP_TTL_MS, type OtpChallenge } from "../../src/index.js"
import { T0 } from "../support/helpers.js"

const attemptArb = fc.record({
  right: fc.boolean(),
  // mostly small steps, sometimes a jump that may cross the 10-minute expiry, sometimes no time at all
  advanceMs: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 120_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: OTP_TTL_MS * 2 }) },
    { weight: 1, arbitrary: fc.constant(0) }
  )
})

describe("attemptOtp (property)", () => {
  it("at most one Accepted, never after 3 attempts, never at or after expiry, never with a wrong code", () => {
    const seen = { accepted: 0, exceeded: 0, expired: 0, invalid: 0, rightButExceeded: 0 }
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 0, max: OTP_TTL_MS }),
        fc.array(attemptArb, { minLength: 1, maxLength: 12 }),
        (issued, issuedAtMs, attempts) => {
          const issuedAt = new Date(T0.getTime() + issuedAtMs)
          let challenge: OtpChallenge | null = issued ? issueOtp("+201001234567", "hash", issuedAt) : null
          const expiresAt = issuedAt.getTime() + OTP_TTL_MS
          let clock = issuedAt.getTime()
          let acceptedCount = 0
          let counted = 0 // independent count of the attempts that should count
          let exceededSeen = false

          attempts.forEach(({ right, advanceMs }, index) => {
            clock += advanceMs
            const now = new Date(clock)
            const before = challenge
            const verdict = attemptOtp(challenge, right, now)

            // the independent oracle, from decisions.md §7
            const expected =
              before === null || acceptedCount > 0
                ? "InvalidOtp"
                : counted >= OTP_MAX_ATTEMPTS
                  ? "OtpAttemptsExceeded"
                  : clock >= expiresAt
                    ? "OtpExpired"
                    : right
                      ? "Accepted"
                      : "InvalidOtp"
            const actual = verdict._tag === "Accepted" ? "Accepted" : verdict.error._tag
            expect(actual, `attempt ${index + 1}`).toBe(expected)

            if (verdict._tag === "Accepted") {
              acceptedCount++
              expect(right).toBe(true)
              expect(clock).toBeLessThan(expiresAt)
              expect(counted).toBeLessThan(OTP_MAX_ATTEMPTS)
              expect(index + 1).toBeLessThanOrEqual(OTP_MAX_ATTEMPTS)
              expect(verdict.challenge.consumedAt).toEqual(now)
              expect(verdict.challenge.attempts).toBe(counted + 1)
              expect(exceededSeen).toBe(false)
              seen.accepted++
            } else {
              if (verdict.error._tag === "OtpAttemptsExceeded") {
                exceededSeen = true
                seen.exceeded++
                if (right) seen.rightButExceeded++
              }
              if (verdict.error._tag === "OtpExpired") seen.expired++
              if (verdict.error._tag === "InvalidOtp") seen.invalid++
              if (before === null) expect(verdict.challenge).toBeNull()
            }
            if (expected === "Accepted" || (expected === "InvalidOtp" && before !== null && acceptedCount === 0))
              counted++
            if (verdict.challenge !== null) {
              // attempts only ever grow, by at most one, and never past the limit
              expect(verdict.challenge.attempts).toBeLessThanOrEqual(OTP_MAX_ATTEMPTS)
              expect(verdict.challenge.attempts).toBeGreaterThanOrEqual(before?.attempts ?? 0)
              expect(verdict.challenge.attempts - (before?.attempts ?? 0)).toBeLessThanOrEqual(1)
              expect(verdict.challenge.attempts).toBe(counted)
              expect(verdict.challenge.expiresAt.getTime()).toBe(expiresAt)
            }
            challenge = verdict.challenge
            expect(acceptedCount).toBeLessThanOrEqual(1)
          })
        }
      ),
      { numRuns: 1_000 }
    )
    // every verdict was reached, including the right code refused after 3 attempts
    expect(seen.accepted).toBeGreaterThan(0)
    expect(seen.exceeded).toBeGreaterThan(0)
    expect(seen.rightButExceeded).toBeGreaterThan(0)
    expect(seen.expired).toBeGreaterThan(0)
    expect(seen.invalid).toBeGreaterThan(0)
  })
})
