import { Option } from "effect"
import { describe, expect, it } from "vitest"
import {
  acceptOffer,
  bargainMessageText,
  CounterLimitReached,
  counterOffer,
  DomainEvent,
  notificationsFor,
  OFFER_COUNTER_LIMIT,
  OfferChanged,
  OfferNotPending,
  RequestNotActive,
  reviseOffer,
  statusEventOf
} from "../../src/index.js"
import { activeRequest, at, BUYER, left, offerOf, right, SELLER } from "../support/helpers.js"

const scene = { buyerId: BUYER, conversationId: "conversation-1" }

const counterArgs = (overrides: Partial<Parameters<typeof counterOffer>[0]> = {}) => ({
  offer: offerOf({ price: 300, revision: 2 }),
  request: activeRequest(),
  scene,
  countersSoFar: 0,
  counterId: "counter-1",
  price: 250,
  note: "With the charger?",
  now: at(5_000),
  ...overrides
})

describe("counterOffer", () => {
  it("records the buyer's price against the revision it answers, leaving the offer as it is", () => {
    const { events, state } = right(counterOffer(counterArgs()))
    expect(state.counter).toEqual({
      id: "counter-1",
      offerId: "offer-1",
      price: 250,
      note: "With the charger?",
      revision: 2,
      createdAt: at(5_000)
    })
    expect(state.history).toEqual({
      offerId: "offer-1",
      type: "countered",
      price: 250,
      by: "buyer",
      revision: 2,
      createdAt: at(5_000)
    })
    expect(events).toEqual([
      DomainEvent.OfferCountered({
        offerId: "offer-1",
        requestId: "request-1",
        sellerId: SELLER,
        buyerId: BUYER,
        conversationId: "conversation-1",
        counterId: "counter-1"
      })
    ])
  })

  it("allows the last counter of the limit and refuses the one after", () => {
    expect(right(counterOffer(counterArgs({ countersSoFar: OFFER_COUNTER_LIMIT - 1 }))).state.counter.price).toBe(250)
    expect(left(counterOffer(counterArgs({ countersSoFar: OFFER_COUNTER_LIMIT })))).toEqual(
      new CounterLimitReached({ max: 3 })
    )
  })

  it("refuses a request that is not active, before looking at the offer", () => {
    for (const status of ["closed", "expired"] as const) {
      expect(
        left(counterOffer(counterArgs({ request: activeRequest({ status }), offer: offerOf({ status: "rejected" }) })))
      ).toBeInstanceOf(RequestNotActive)
    }
  })

  it("refuses an offer that is not pending", () => {
    for (const status of ["accepted", "rejected", "withdrawn", "expired"] as const) {
      expect(left(counterOffer(counterArgs({ offer: offerOf({ status }) })))).toBeInstanceOf(OfferNotPending)
    }
  })
})

describe("reviseOffer", () => {
  it("takes the fields given, keeps the others, and moves the revision up by one", () => {
    const offer = offerOf({ price: 300, revision: 1, availability: "today", conditionNotes: "like new" })
    const { events, state } = right(reviseOffer({ offer, changes: { price: 280 }, scene, now: at(9_000) }))
    expect(state.offer).toEqual({ ...offer, price: 280, revision: 2 })
    expect(state.history).toEqual({
      offerId: offer.id,
      type: "revised",
      price: 280,
      by: "seller",
      revision: 2,
      createdAt: at(9_000)
    })
    expect(events).toEqual([
      DomainEvent.OfferRevised({
        offerId: offer.id,
        requestId: offer.requestId,
        sellerId: offer.sellerId,
        buyerId: BUYER,
        conversationId: "conversation-1",
        revision: 2
      })
    ])
  })

  it("clears a note given as null and keeps the price when only the texts change", () => {
    const offer = offerOf({ price: 300, revision: 3, conditionNotes: "like new", warrantyNotes: "1 year" })
    const { state } = right(
      reviseOffer({ offer, changes: { availability: "tomorrow", conditionNotes: null }, scene, now: at(1) })
    )
    expect(state.offer).toMatchObject({
      price: 300,
      revision: 4,
      availability: "tomorrow",
      conditionNotes: null,
      warrantyNotes: "1 year"
    })
  })

  it("refuses an offer that is not pending", () => {
    for (const status of ["accepted", "rejected", "withdrawn", "expired"] as const) {
      expect(
        left(reviseOffer({ offer: offerOf({ status }), changes: { price: 1 }, scene, now: at(1) }))
      ).toBeInstanceOf(OfferNotPending)
    }
  })
})

describe("acceptOffer with the revision the buyer saw", () => {
  const acceptArgs = (expectedRevision: number | undefined) => ({
    offer: offerOf({ price: 280, revision: 2 }),
    request: activeRequest(),
    sellerProfile: { status: "approved" as const },
    otherOffers: [],
    dealId: "deal-1",
    conversationId: "conversation-1",
    now: at(1_000),
    expectedRevision
  })

  it("accepts at the offer's revision, or without one", () => {
    expect(right(acceptOffer(acceptArgs(2))).state.offer).toMatchObject({ status: "accepted", price: 280, revision: 2 })
    expect(right(acceptOffer(acceptArgs(undefined))).state.offer.status).toBe("accepted")
  })

  it("refuses any other revision with the offer's current one", () => {
    for (const expected of [1, 3, 100]) {
      expect(left(acceptOffer(acceptArgs(expected)))).toEqual(new OfferChanged({ expected, revision: 2 }))
    }
  })

  it("still answers an offer that is not pending as such, whatever the revision", () => {
    const args = { ...acceptArgs(1), offer: offerOf({ status: "withdrawn", revision: 2 }) }
    expect(left(acceptOffer(args))).toBeInstanceOf(OfferNotPending)
  })
})

describe("statusEventOf", () => {
  it("writes how an offer ended, on the side whose move it was, at its price and revision", () => {
    const offer = offerOf({ price: 280, revision: 3 })
    const ended = (status: "accepted" | "rejected" | "withdrawn") =>
      Option.getOrThrow(statusEventOf({ ...offer, status }, at(7)))
    expect(ended("accepted")).toEqual({
      offerId: offer.id,
      type: "accepted",
      price: 280,
      by: "buyer",
      revision: 3,
      createdAt: at(7)
    })
    expect(ended("rejected").by).toBe("buyer")
    expect(ended("withdrawn").by).toBe("seller")
  })

  it("writes nothing for a pending or expired offer", () => {
    expect(Option.isNone(statusEventOf(offerOf({ status: "expired" }), at(1)))).toBe(true)
    expect(Option.isNone(statusEventOf(offerOf({ status: "pending" }), at(1)))).toBe(true)
  })
})

describe("bargainMessageText", () => {
  it("states the price in the mover's language, with the counter's note on the next line", () => {
    expect(bargainMessageText("counter", 2800, "With the charger?", "en")).toBe(
      "The buyer proposes: 2,800\nWith the charger?"
    )
    expect(bargainMessageText("counter", 2800.5, null, "ar")).toBe("سعر مقترح من المشتري: 2,800.5")
    expect(bargainMessageText("revision", 2900, null, "en")).toBe("The seller revised the offer: 2,900")
  })
})

describe("notificationsFor bargaining", () => {
  it("owes offer_countered to the seller and offer_revised to the buyer", () => {
    const base = { offerId: "o", requestId: "r", sellerId: SELLER, buyerId: BUYER, conversationId: "c" }
    expect(notificationsFor(DomainEvent.OfferCountered({ ...base, counterId: "k" }))).toEqual([
      {
        recipientId: SELLER,
        type: "offer_countered",
        data: { requestId: "r", offerId: "o", conversationId: "c", counterId: "k" }
      }
    ])
    expect(notificationsFor(DomainEvent.OfferRevised({ ...base, revision: 2 }))).toEqual([
      { recipientId: BUYER, type: "offer_revised", data: { requestId: "r", offerId: "o", conversationId: "c" } }
    ])
  })
})
