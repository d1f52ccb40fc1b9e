import { describe, expect, it } from "vitest"
import {
  acceptOffer,
  CannotOfferOnOwnRequest,
  createOffer,
  DomainEvent,
  type NewOffer,
  type Offer,
  OfferAlreadyAccepted,
  OfferNotPending,
  RequestNotActive,
  rejectPendingOffers,
  SellerNotApproved,
  type SellerProfileStatus,
  withdrawOffer
} from "../../src/index.js"
import { activeRequest, at, BUYER, left, offerOf, right, SELLER, SELLER_2, T0, tagsOf } from "../support/helpers.js"

const newOffer = (overrides: Partial<NewOffer> = {}): NewOffer => ({
  validUntil: null,
  id: "offer-1",
  requestId: "request-1",
  sellerId: SELLER,
  price: 250,
  availability: "tomorrow",
  conditionNotes: "like new",
  warrantyNotes: null,
  ...overrides
})

const offerArgs = (overrides: Partial<Parameters<typeof createOffer>[0]> = {}): Parameters<typeof createOffer>[0] => ({
  input: newOffer(),
  request: activeRequest({ offerCount: 2 }),
  sellerProfile: { status: "approved" },
  conversationId: "conversation-1",
  now: at(1_000),
  ...overrides
})

describe("createOffer", () => {
  it("creates a pending offer, increments offerCount and raises OfferCreated", () => {
    const { state, events } = right(createOffer(offerArgs()))
    expect(state.offer).toEqual({ ...newOffer(), status: "pending", revision: 1, createdAt: at(1_000) })
    expect(state.request.offerCount).toBe(3)
    expect(state.request.status).toBe("active")
    expect(events).toEqual([
      DomainEvent.OfferCreated({
        offerId: "offer-1",
        requestId: "request-1",
        sellerId: SELLER,
        buyerId: BUYER,
        conversationId: "conversation-1"
      })
    ])
  })

  it.each<SellerProfileStatus>(["pending", "rejected", "suspended"])(
    "refuses a seller whose profile is %s with SellerNotApproved (403)",
    (status) => {
      const error = left(createOffer(offerArgs({ sellerProfile: { status } })))
      expect(error).toBeInstanceOf(SellerNotApproved)
      expect(error.code).toBe("SELLER_NOT_APPROVED")
    }
  )

  it("refuses a user without a seller profile with SellerNotApproved", () => {
    expect(left(createOffer(offerArgs({ sellerProfile: null })))).toBeInstanceOf(SellerNotApproved)
  })

  it("refuses an offer on the seller's own request with CannotOfferOnOwnRequest (422)", () => {
    const error = left(createOffer(offerArgs({ input: newOffer({ sellerId: BUYER }) })))
    expect(error).toBeInstanceOf(CannotOfferOnOwnRequest)
    expect(error.code).toBe("CANNOT_OFFER_ON_OWN_REQUEST")
  })

  it("refuses an offer on a closed request with RequestNotActive (422)", () => {
    const error = left(createOffer(offerArgs({ request: activeRequest({ status: "closed", closedAt: T0 }) })))
    expect(error).toBeInstanceOf(RequestNotActive)
    expect(error.code).toBe("REQUEST_NOT_ACTIVE")
  })

  describe("checks its refusals in order", () => {
    const closed = activeRequest({ status: "closed", closedAt: T0 })
    it("not approved wins over own request and closed request", () => {
      const error = left(
        createOffer(
          offerArgs({
            sellerProfile: { status: "suspended" },
            input: newOffer({ sellerId: BUYER }),
            request: closed
          })
        )
      )
      expect(error).toBeInstanceOf(SellerNotApproved)
    })
    it("own request wins over closed request", () => {
      const error = left(createOffer(offerArgs({ input: newOffer({ sellerId: BUYER }), request: closed })))
      expect(error).toBeInstanceOf(CannotOfferOnOwnRequest)
    })
  })
})

describe("withdrawOffer", () => {
  it("withdraws a pending offer, drops offerCount by one and raises OfferWithdrawn", () => {
    const request = activeRequest({ offerCount: 2 })
    const { state, events } = right(withdrawOffer(offerOf(), request))
    expect(state.offer.status).toBe("withdrawn")
    expect(state.offer.id).toBe("offer-1")
    expect(state.request.offerCount).toBe(1)
    expect(state.request.status).toBe("active")
    expect(events).toEqual([
      DomainEvent.OfferWithdrawn({ offerId: "offer-1", requestId: "request-1", sellerId: SELLER })
    ])
  })

  it("never drives offerCount below zero", () => {
    const { state } = right(withdrawOffer(offerOf(), activeRequest({ offerCount: 0 })))
    expect(state.request.offerCount).toBe(0)
  })

  it("refuses an accepted offer with OfferAlreadyAccepted (422)", () => {
    const error = left(withdrawOffer(offerOf({ status: "accepted" }), activeRequest({ offerCount: 1 })))
    expect(error).toBeInstanceOf(OfferAlreadyAccepted)
    expect(error.code).toBe("OFFER_ALREADY_ACCEPTED")
  })

  it.each(["rejected", "withdrawn"] as const)("refuses a %s offer with OfferNotPending (422)", (status) => {
    const error = left(withdrawOffer(offerOf({ status }), activeRequest({ offerCount: 1 })))
    expect(error).toBeInstanceOf(OfferNotPending)
    expect(error.code).toBe("OFFER_NOT_PENDING")
  })

  it("lets the seller offer again on the request after withdrawing", () => {
    const created = right(createOffer(offerArgs({ request: activeRequest() }))).state
    expect(created.request.offerCount).toBe(1)
    const withdrawn = right(withdrawOffer(created.offer, created.request)).state
    expect(withdrawn.request.offerCount).toBe(0)
    const again = right(
      createOffer(offerArgs({ input: newOffer({ id: "offer-2" }), request: withdrawn.request }))
    ).state
    expect(again.offer.status).toBe("pending")
    expect(again.request.offerCount).toBe(1)
  })
})

describe("rejectPendingOffers", () => {
  const offers: ReadonlyArray<Offer> = [
    offerOf({ id: "a", status: "pending" }),
    offerOf({ id: "b", status: "pending", sellerId: SELLER_2 }),
    offerOf({ id: "c", status: "withdrawn" }),
    offerOf({ id: "d", status: "rejected" })
  ]

  it("rejects only pending offers and raises one OfferRejected each", () => {
    const { rejected, events } = rejectPendingOffers(offers)
    expect(rejected.map((o) => [o.id, o.status])).toEqual([
      ["a", "rejected"],
      ["b", "rejected"]
    ])
    expect(events).toEqual([
      DomainEvent.OfferRejected({ offerId: "a", requestId: "request-1", sellerId: SELLER }),
      DomainEvent.OfferRejected({ offerId: "b", requestId: "request-1", sellerId: SELLER_2 })
    ])
  })

  it("skips the excepted offer", () => {
    const { rejected } = rejectPendingOffers(offers, "a")
    expect(rejected.map((o) => o.id)).toEqual(["b"])
  })

  it("rejects one seller's pending offers across requests (suspension), each event naming its request", () => {
    const ofSeller: ReadonlyArray<Offer> = [
      offerOf({ id: "x", requestId: "request-1" }),
      offerOf({ id: "y", requestId: "request-2" }),
      offerOf({ id: "z", requestId: "request-3", status: "accepted" })
    ]
    const { rejected, events } = rejectPendingOffers(ofSeller)
    expect(rejected.map((o) => [o.id, o.requestId, o.status])).toEqual([
      ["x", "request-1", "rejected"],
      ["y", "request-2", "rejected"]
    ])
    expect(events).toEqual([
      DomainEvent.OfferRejected({ offerId: "x", requestId: "request-1", sellerId: SELLER }),
      DomainEvent.OfferRejected({ offerId: "y", requestId: "request-2", sellerId: SELLER })
    ])
  })

  it("returns nothing when no offer is pending", () => {
    const { rejected, events } = rejectPendingOffers([offerOf({ status: "withdrawn" })])
    expect(rejected).toEqual([])
    expect(events).toEqual([])
  })
})

describe("acceptOffer", () => {
  const target = offerOf({ id: "offer-1", sellerId: SELLER })
  const others: ReadonlyArray<Offer> = [
    target,
    offerOf({ id: "offer-2", sellerId: SELLER_2, status: "pending" }),
    offerOf({ id: "offer-3", sellerId: "seller-3", status: "withdrawn" }),
    offerOf({ id: "offer-4", sellerId: "seller-4", status: "pending" })
  ]
  const args = (overrides: Partial<Parameters<typeof acceptOffer>[0]> = {}): Parameters<typeof acceptOffer>[0] => ({
    offer: target,
    request: activeRequest({ offerCount: 3 }),
    sellerProfile: { status: "approved" },
    otherOffers: others,
    dealId: "deal-1",
    conversationId: "conversation-1",
    now: at(5_000),
    ...overrides
  })

  it("makes a deal with the request, offer, buyer, seller and conversation", () => {
    const { state } = right(acceptOffer(args()))
    expect(state.deal).toEqual({
      id: "deal-1",
      requestId: "request-1",
      offerId: "offer-1",
      buyerId: BUYER,
      sellerId: SELLER,
      conversationId: "conversation-1",
      status: "accepted",
      createdAt: at(5_000),
      completedAt: null,
      cancelledAt: null,
      cancelReason: null,
      cancelDescription: null
    })
    expect(state.offer).toEqual({ ...target, status: "accepted" })
  })

  it("rejects the other pending offers and leaves withdrawn ones untouched", () => {
    const { state } = right(acceptOffer(args()))
    expect(state.rejected.map((o) => [o.id, o.status])).toEqual([
      ["offer-2", "rejected"],
      ["offer-4", "rejected"]
    ])
    expect(state.rejected.some((o) => o.id === "offer-3")).toBe(false)
    expect(state.rejected.some((o) => o.id === "offer-1")).toBe(false)
  })

  it("closes the request with closedAt and keeps offerCount", () => {
    const { state } = right(acceptOffer(args()))
    expect(state.request.status).toBe("closed")
    expect(state.request.closedAt).toEqual(at(5_000))
    expect(state.request.offerCount).toBe(3)
  })

  it("raises OfferAccepted, DealCreated, RequestClosed (reason accepted) then one OfferRejected per rejected offer", () => {
    const { events } = right(acceptOffer(args()))
    expect(tagsOf(events)).toEqual(["OfferAccepted", "DealCreated", "RequestClosed", "OfferRejected", "OfferRejected"])
    expect(events).toEqual([
      DomainEvent.OfferAccepted({
        offerId: "offer-1",
        requestId: "request-1",
        sellerId: SELLER,
        buyerId: BUYER,
        dealId: "deal-1"
      }),
      DomainEvent.DealCreated({
        dealId: "deal-1",
        requestId: "request-1",
        offerId: "offer-1",
        buyerId: BUYER,
        sellerId: SELLER
      }),
      DomainEvent.RequestClosed({ requestId: "request-1", buyerId: BUYER, reason: "accepted" }),
      DomainEvent.OfferRejected({ offerId: "offer-2", requestId: "request-1", sellerId: SELLER_2 }),
      DomainEvent.OfferRejected({ offerId: "offer-4", requestId: "request-1", sellerId: "seller-4" })
    ])
  })

  it("works with no other offers", () => {
    const { state, events } = right(acceptOffer(args({ otherOffers: [] })))
    expect(state.rejected).toEqual([])
    expect(tagsOf(events)).toEqual(["OfferAccepted", "DealCreated", "RequestClosed"])
  })

  it("refuses an accepted offer with OfferAlreadyAccepted", () => {
    const error = left(acceptOffer(args({ offer: offerOf({ status: "accepted" }) })))
    expect(error).toBeInstanceOf(OfferAlreadyAccepted)
  })

  it.each(["rejected", "withdrawn"] as const)("refuses a %s offer with OfferNotPending", (status) => {
    expect(left(acceptOffer(args({ offer: offerOf({ status }) })))).toBeInstanceOf(OfferNotPending)
  })

  it.each<SellerProfileStatus>(["suspended", "pending", "rejected"])(
    "refuses a pending offer whose seller's profile is %s with OfferNotPending (422)",
    (status) => {
      const error = left(acceptOffer(args({ sellerProfile: { status } })))
      expect(error).toBeInstanceOf(OfferNotPending)
      expect(error.code).toBe("OFFER_NOT_PENDING")
    }
  )

  it("refuses a pending offer whose seller has no profile with OfferNotPending", () => {
    expect(left(acceptOffer(args({ sellerProfile: null })))).toBeInstanceOf(OfferNotPending)
  })

  it("an accepted offer of a suspended seller still answers OfferAlreadyAccepted (the deal stands)", () => {
    const error = left(
      acceptOffer(args({ offer: offerOf({ status: "accepted" }), sellerProfile: { status: "suspended" } }))
    )
    expect(error).toBeInstanceOf(OfferAlreadyAccepted)
  })

  it("refuses a pending offer of a closed request with RequestNotActive", () => {
    const error = left(acceptOffer(args({ request: activeRequest({ status: "closed", closedAt: T0 }) })))
    expect(error).toBeInstanceOf(RequestNotActive)
    expect(error.code).toBe("REQUEST_NOT_ACTIVE")
  })

  it("a second accept on the closed request fails (exactly one accept succeeds)", () => {
    const first = right(acceptOffer(args())).state
    const second = acceptOffer(
      args({ offer: offerOf({ id: "offer-2", sellerId: SELLER_2 }), request: first.request, dealId: "deal-2" })
    )
    expect(left(second)).toBeInstanceOf(RequestNotActive)
  })
})
