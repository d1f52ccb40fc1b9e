import { describe, expect, it } from "vitest"
import { DomainEvent, isValidRatingValue, rateDeal, ValidationFailed } from "../../src/index.js"
import { at, BUYER, dealOf, left, right, SELLER } from "../support/helpers.js"

const args = (overrides: Partial<Parameters<typeof rateDeal>[0]> = {}): Parameters<typeof rateDeal>[0] => ({
  id: "rating-1",
  deal: dealOf({ status: "completed", completedAt: at(1) }),
  alreadyRated: false,
  rating: 4,
  reviewText: "good",
  now: at(2),
  ...overrides
})

describe("isValidRatingValue", () => {
  it("accepts the integers 1..5 only", () => {
    expect([1, 2, 3, 4, 5].every(isValidRatingValue)).toBe(true)
    for (const bad of [0, 6, -1, 4.5, 1.0001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(isValidRatingValue(bad)).toBe(false)
    }
  })
})

describe("rateDeal", () => {
  it.each([1, 2, 3, 4, 5])("rates a completed deal with %i and raises RatingSubmitted", (value) => {
    const { state, events } = right(rateDeal(args({ rating: value })))
    expect(state).toEqual({
      id: "rating-1",
      dealId: "deal-1",
      sellerId: SELLER,
      buyerId: BUYER,
      rating: value,
      reviewText: "good",
      createdAt: at(2)
    })
    expect(events).toEqual([
      DomainEvent.RatingSubmitted({ ratingId: "rating-1", dealId: "deal-1", sellerId: SELLER, rating: value })
    ])
  })

  it("takes the seller from the deal, not from input", () => {
    const { state } = right(rateDeal(args({ deal: dealOf({ status: "completed", sellerId: "someone-else" }) })))
    expect(state.sellerId).toBe("someone-else")
  })

  it.each([0, 6, 3.5, -2, Number.NaN])("refuses rating %s as a validation error on field rating", (value) => {
    const error = left(rateDeal(args({ rating: value })))
    expect(error).toBeInstanceOf(ValidationFailed)
    expect(error.code).toBe("VALIDATION_ERROR")
    expect(error.details).toEqual({ rating: [{ key: "rating_range" }] })
  })

  it.each(["accepted", "cancelled"] as const)("refuses a %s deal as deal_not_completed", (status) => {
    const error = left(rateDeal(args({ deal: dealOf({ status }) })))
    expect(error).toBeInstanceOf(ValidationFailed)
    expect(error.details).toEqual({ deal_id: [{ key: "deal_not_completed" }] })
  })

  it("refuses a second rating of the same deal as deal_already_rated", () => {
    const error = left(rateDeal(args({ alreadyRated: true })))
    expect(error).toBeInstanceOf(ValidationFailed)
    expect(error.details).toEqual({ deal_id: [{ key: "deal_already_rated" }] })
  })
})
