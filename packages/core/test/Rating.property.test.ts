import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addRating } from "../src/index.js"

const round2 = (x: number) => Math.round(x * 100) / 100

const fold = (ratings: ReadonlyArray<number>) => {
  const trail: Array<{ ratingAvg: number; ratingCount: number }> = []
  let profile = { ratingAvg: 0, ratingCount: 0 }
  for (const r of ratings) {
    profile = addRating(profile, r)
    trail.push(profile)
  }
  return trail
}

const ratingsArb = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 300 })

describe("addRating (property)", () => {
  /**
   * addRating folds the rounded stored average, so it is not exactly round2(mean). Each step adds a rounding error
   * of at most 0.005 and scales the previous error by (n-1)/n, so n·|e_n| <= n·(n+1)/2 · 0.005, i.e.
   * |avg_n - mean_n| <= 0.0025·(n+1). That is the honest bound this property checks (plus float slack); it is
   * loose: see the KNOWN BUG test in SellerProfile.test.ts for a drift of 0.06 after 100 ratings.
   */
  it("count is exact, average stays in [1,5] with 2 decimals and within 0.0025·(n+1) of the true mean", () => {
    fc.assert(
      fc.property(ratingsArb, (ratings) => {
        const trail = fold(ratings)
        let sum = 0
        trail.forEach(({ ratingAvg, ratingCount }, i) => {
          const n = i + 1
          sum += ratings[i]!
          const mean = sum / n
          expect(ratingCount).toBe(n)
          expect(ratingAvg).toBeGreaterThanOrEqual(1)
          expect(ratingAvg).toBeLessThanOrEqual(5)
          expect(Math.abs(ratingAvg * 100 - Math.round(ratingAvg * 100))).toBeLessThan(1e-6)
          expect(Math.abs(ratingAvg - mean)).toBeLessThanOrEqual(0.0025 * (n + 1) + 1e-9)
          // up to three ratings nothing has been rounded before, so the average is exactly round2(mean)
          if (n <= 3) expect(ratingAvg).toBe(round2(mean))
        })
      }),
      { numRuns: 500 }
    )
  })

  it("equal ratings give exactly that rating", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 200 }), (value, n) => {
        const last = fold(Array.from({ length: n }, () => value)).at(-1)!
        expect(last).toEqual({ ratingAvg: value, ratingCount: n })
      }),
      { numRuns: 200 }
    )
  })

  it("a rating at or above the average never lowers it, one at or below never raises it", () => {
    fc.assert(
      fc.property(ratingsArb, fc.integer({ min: 1, max: 5 }), (ratings, next) => {
        const profile = fold(ratings).at(-1)!
        const after = addRating(profile, next)
        if (next >= profile.ratingAvg) expect(after.ratingAvg).toBeGreaterThanOrEqual(profile.ratingAvg)
        if (next <= profile.ratingAvg) expect(after.ratingAvg).toBeLessThanOrEqual(profile.ratingAvg)
        expect(after.ratingCount).toBe(profile.ratingCount + 1)
      }),
      { numRuns: 300 }
    )
  })
})
