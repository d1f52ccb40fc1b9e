import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addRating } from "../../src/index.js"

/** The mean of `sum / n` to 2 decimals, halves up, in integer arithmetic only: floor((200·sum + n) / 2n) hundredths. */
const exactRound2 = (sum: number, n: number) => Math.floor((200 * sum + n) / (2 * n)) / 100

type Figures = ReturnType<typeof addRating>

const totalsOf = (figures: Figures) => ({ sum: figures.ratingSum, count: figures.ratingCount })

const fold = (ratings: ReadonlyArray<number>) => {
  const trail: Array<Figures> = []
  let totals = { sum: 0, count: 0 }
  for (const r of ratings) {
    const figures = addRating(totals, r)
    totals = totalsOf(figures)
    trail.push(figures)
  }
  return trail
}

const ratingsArb = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 300 })

describe("addRating (property)", () => {
  /**
   * addRating works from the exact sum, so after any number of ratings the average is the true mean rounded to
   * 2 decimals: within 0.005 of it, whatever the history (the old fold of the rounded average drifted by up to
   * 0.0025·(n+1)). The sum is checked against an independent running total.
   */
  it("count and sum are exact, the average is the true mean to 2 decimals after every rating", () => {
    fc.assert(
      fc.property(ratingsArb, (ratings) => {
        const trail = fold(ratings)
        let sum = 0
        trail.forEach(({ ratingAvg, ratingCount, ratingSum }, i) => {
          const n = i + 1
          sum += ratings[i]!
          const mean = sum / n
          expect(ratingCount).toBe(n)
          expect(ratingSum).toBe(sum)
          expect(ratingAvg).toBeGreaterThanOrEqual(1)
          expect(ratingAvg).toBeLessThanOrEqual(5)
          expect(Math.abs(ratingAvg * 100 - Math.round(ratingAvg * 100))).toBeLessThan(1e-6)
          expect(Math.abs(ratingAvg - mean)).toBeLessThanOrEqual(0.005 + 1e-9)
          expect(ratingAvg).toBe(exactRound2(sum, n))
        })
      }),
      { numRuns: 500 }
    )
  })

  it("the order of the ratings does not matter", () => {
    fc.assert(
      fc.property(ratingsArb, (ratings) => {
        const forward = fold(ratings).at(-1)!
        const backward = fold([...ratings].reverse()).at(-1)!
        expect(backward).toEqual(forward)
      }),
      { numRuns: 200 }
    )
  })

  it("equal ratings give exactly that rating", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 200 }), (value, n) => {
        const last = fold(Array.from({ length: n }, () => value)).at(-1)!
        expect(last).toEqual({ ratingSum: value * n, ratingCount: n, ratingAvg: value })
      }),
      { numRuns: 200 }
    )
  })

  it("a rating at or above the average never lowers it, one at or below never raises it", () => {
    fc.assert(
      fc.property(ratingsArb, fc.integer({ min: 1, max: 5 }), (ratings, next) => {
        const figures = fold(ratings).at(-1)!
        const after = addRating(totalsOf(figures), next)
        if (next >= figures.ratingAvg) expect(after.ratingAvg).toBeGreaterThanOrEqual(figures.ratingAvg)
        if (next <= figures.ratingAvg) expect(after.ratingAvg).toBeLessThanOrEqual(figures.ratingAvg)
        expect(after.ratingCount).toBe(figures.ratingCount + 1)
      }),
      { numRuns: 300 }
    )
  })
})
