import { describe, expect, it } from "vitest"
import {
  closeRequest,
  createRequest,
  DomainEvent,
  ensureActive,
  priceOutsideBudget,
  RequestAlreadyClosed,
  RequestNotActive
} from "../../src/index.js"
import { activeRequest, at, BUYER, left, newRequestInput, right, T0 } from "../support/helpers.js"

describe("createRequest", () => {
  it("creates an active request with no offers and raises RequestCreated", () => {
    const input = newRequestInput()
    const { state, events } = right(createRequest(input, T0))
    expect(state).toEqual({
      ...input,
      status: "active",
      offerCount: 0,
      createdAt: T0,
      closedAt: null,
      expiresAt: at(30 * 24 * 60 * 60 * 1000),
      extendedAt: null,
      remindedAt: null
    })
    expect(events).toEqual([DomainEvent.RequestCreated({ requestId: "request-1", buyerId: BUYER })])
  })

  it("keeps every input field as given", () => {
    const input = newRequestInput({
      category: "accessory",
      conditionPref: "used",
      notes: "black only",
      locationCity: null
    })
    const { state } = right(createRequest(input, at(5)))
    expect(state.category).toBe("accessory")
    expect(state.conditionPref).toBe("used")
    expect(state.notes).toBe("black only")
    expect(state.locationCity).toBeNull()
    expect(state.createdAt).toEqual(at(5))
  })
})

describe("closeRequest", () => {
  it("closes an active request, sets closedAt and raises RequestClosed with reason owner by default", () => {
    const request = activeRequest({ offerCount: 3 })
    const now = at(60_000)
    const { state, events } = right(closeRequest(request, now))
    expect(state.status).toBe("closed")
    expect(state.closedAt).toEqual(now)
    expect(state.offerCount).toBe(3)
    expect(events).toEqual([DomainEvent.RequestClosed({ requestId: "request-1", buyerId: BUYER, reason: "owner" })])
    // the input is not mutated
    expect(request.status).toBe("active")
    expect(request.closedAt).toBeNull()
  })

  it("passes the given reason through to the event", () => {
    const { events } = right(closeRequest(activeRequest(), at(1), "accepted"))
    expect(events).toEqual([DomainEvent.RequestClosed({ requestId: "request-1", buyerId: BUYER, reason: "accepted" })])
  })

  it("refuses to close an already closed request with RequestAlreadyClosed (422)", () => {
    const closed = activeRequest({ status: "closed", closedAt: at(1) })
    const error = left(closeRequest(closed, at(2)))
    expect(error).toBeInstanceOf(RequestAlreadyClosed)
    expect(error._tag).toBe("RequestAlreadyClosed")
    expect(error.code).toBe("REQUEST_ALREADY_CLOSED")
  })

  it("closing twice in a row fails the second time and keeps the first closedAt", () => {
    const once = right(closeRequest(activeRequest(), at(10))).state
    const twice = closeRequest(once, at(20))
    expect(left(twice)).toBeInstanceOf(RequestAlreadyClosed)
    expect(once.closedAt).toEqual(at(10))
  })
})

describe("ensureActive", () => {
  it("passes an active request and refuses a closed one with RequestNotActive", () => {
    const request = activeRequest()
    expect(right(ensureActive(request))).toBe(request)
    const error = left(ensureActive(activeRequest({ status: "closed", closedAt: T0 })))
    expect(error).toBeInstanceOf(RequestNotActive)
    expect(error.code).toBe("REQUEST_NOT_ACTIVE")
  })
})

describe("priceOutsideBudget", () => {
  it("is false inside the inclusive budget range and true outside it", () => {
    const budget = { budgetMin: 100, budgetMax: 500 }
    expect(priceOutsideBudget(budget, 100)).toBe(false)
    expect(priceOutsideBudget(budget, 300)).toBe(false)
    expect(priceOutsideBudget(budget, 500)).toBe(false)
    expect(priceOutsideBudget(budget, 99.99)).toBe(true)
    expect(priceOutsideBudget(budget, 500.01)).toBe(true)
  })
})
