import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { retryDelayMs } from "../../src/notifications/Backoff.js"

const policy = { base: Duration.seconds(2), max: Duration.minutes(10) }

describe("retryDelayMs", () => {
  it("doubles the step with each attempt", () => {
    expect([1, 2, 3, 4, 5].map((attempts) => retryDelayMs(policy, attempts, 0.999_999, undefined))).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000
    ])
  })

  it("jitters between half and all of the step", () => {
    expect(retryDelayMs(policy, 3, 0, undefined)).toBe(4_000)
    expect(retryDelayMs(policy, 3, 0.5, undefined)).toBe(6_000)
  })

  it("never exceeds the maximum, however many attempts were made", () => {
    expect(retryDelayMs(policy, 40, 0.999_999, undefined)).toBe(600_000)
    expect(retryDelayMs(policy, 40, 0, undefined)).toBe(300_000)
    expect(retryDelayMs(policy, 5_000, 0.5, undefined)).toBe(450_000)
  })

  it("waits at least the provider's Retry-After, capped by the maximum", () => {
    expect(retryDelayMs(policy, 1, 0, 30_000)).toBe(30_000)
    expect(retryDelayMs(policy, 1, 0, 500)).toBe(1_000)
    expect(retryDelayMs(policy, 1, 0, 86_400_000)).toBe(600_000)
  })
})
