import { describe, expect, it } from "vitest"
import { cancelDeal, completeDeal, DealNotActive, DomainEvent } from "../../src/index.js"
import { at, BUYER, dealOf, left, right, SELLER } from "../support/helpers.js"

describe("completeDeal", () => {
  it("completes an accepted deal, sets completedAt and raises DealCompleted", () => {
    const { state, events } = right(completeDeal(dealOf(), at(9_000)))
    expect(state.status).toBe("completed")
    expect(state.completedAt).toEqual(at(9_000))
    expect(state.cancelledAt).toBeNull()
    expect(events).toEqual([DomainEvent.DealCompleted({ dealId: "deal-1", buyerId: BUYER, sellerId: SELLER })])
  })

  it.each(["completed", "cancelled"] as const)("refuses a %s deal with DealNotActive (422)", (status) => {
    const error = left(completeDeal(dealOf({ status }), at(9_000)))
    expect(error).toBeInstanceOf(DealNotActive)
    expect(error.code).toBe("DEAL_NOT_ACTIVE")
  })
})

describe("cancelDeal", () => {
  it("cancels an accepted deal with reason and description, sets cancelledAt and raises DealCancelled", () => {
    const { state, events } = right(
      cancelDeal(dealOf(), { reason: "changed my mind", description: "found cheaper" }, at(7))
    )
    expect(state.status).toBe("cancelled")
    expect(state.cancelledAt).toEqual(at(7))
    expect(state.completedAt).toBeNull()
    expect(state.cancelReason).toBe("changed my mind")
    expect(state.cancelDescription).toBe("found cheaper")
    expect(events).toEqual([
      DomainEvent.DealCancelled({ dealId: "deal-1", buyerId: BUYER, sellerId: SELLER, reason: "changed my mind" })
    ])
  })

  it("keeps a null description", () => {
    const { state } = right(cancelDeal(dealOf(), { reason: "no show", description: null }, at(7)))
    expect(state.cancelDescription).toBeNull()
  })

  it.each(["completed", "cancelled"] as const)("refuses a %s deal with DealNotActive", (status) => {
    expect(left(cancelDeal(dealOf({ status }), { reason: "x", description: null }, at(1)))).toBeInstanceOf(
      DealNotActive
    )
  })

  it("a completed deal cannot be cancelled and a cancelled one cannot be completed", () => {
    const completed = right(completeDeal(dealOf(), at(1))).state
    expect(left(cancelDeal(completed, { reason: "x", description: null }, at(2)))).toBeInstanceOf(DealNotActive)
    const cancelled = right(cancelDeal(dealOf(), { reason: "x", description: null }, at(1))).state
    expect(left(completeDeal(cancelled, at(2)))).toBeInstanceOf(DealNotActive)
  })
})
