import { describe, expect, it } from "vitest"
import {
  acceptOffer,
  closeRequest,
  createRequest,
  DomainEvent,
  effectiveOfferOn,
  effectiveRequest,
  expireLapsedOffers,
  expireRequest,
  extendRequest,
  OfferExpired,
  RequestAlreadyClosed,
  RequestAlreadyExtended,
  RequestExpired,
  remindOfExpiry,
  validUntilInRange
} from "../../src/index.js"
import { activeRequest, at, BUYER, left, newRequestInput, offerOf, right, SELLER, T0 } from "../support/helpers.js"

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const expiresAt = at(30 * DAY)

describe("offer validity", () => {
  it("allows valid_until from 1 hour to 30 days ahead, both bounds included", () => {
    expect(validUntilInRange(at(HOUR), T0)).toBe(true)
    expect(validUntilInRange(at(30 * DAY), T0)).toBe(true)
    expect(validUntilInRange(at(HOUR - 1), T0)).toBe(false)
    expect(validUntilInRange(at(30 * DAY + 1), T0)).toBe(false)
    expect(validUntilInRange(at(-1), T0)).toBe(false)
  })

  it("shows a pending offer expired from its valid_until on, and a pending offer of an expired request rejected", () => {
    const offer = offerOf({ validUntil: at(HOUR) })
    const request = activeRequest()
    expect(effectiveOfferOn(offer, request, at(HOUR - 1)).status).toBe("pending")
    expect(effectiveOfferOn(offer, request, at(HOUR)).status).toBe("expired")
    expect(effectiveOfferOn(offerOf({ status: "accepted", validUntil: at(HOUR) }), request, at(2 * HOUR)).status).toBe(
      "accepted"
    )
    expect(effectiveOfferOn(offerOf(), request, expiresAt).status).toBe("rejected")
    expect(effectiveOfferOn(offerOf(), request, at(30 * DAY - 1)).status).toBe("pending")
  })

  it("writes lapsed offers down as expired, out of offer_count, with OfferExpired", () => {
    const lapsed = offerOf({ id: "o1", validUntil: at(HOUR) })
    const open = offerOf({ id: "o2", sellerId: "s2", validUntil: at(2 * HOUR) })
    const unlimited = offerOf({ id: "o3", sellerId: "s3" })
    const result = expireLapsedOffers(activeRequest({ offerCount: 3 }), [lapsed, open, unlimited], at(HOUR))
    expect(result.request.offerCount).toBe(2)
    expect(result.offers.map((o) => o.status)).toEqual(["expired", "pending", "pending"])
    expect(result.expired.map((o) => o.id)).toEqual(["o1"])
    expect(result.events).toEqual([
      DomainEvent.OfferExpired({ offerId: "o1", requestId: "request-1", sellerId: SELLER })
    ])
  })

  it("refuses to accept a lapsed offer with OfferExpired (422)", () => {
    const error = left(
      acceptOffer({
        offer: offerOf({ validUntil: at(HOUR) }),
        request: activeRequest(),
        sellerProfile: { status: "approved" },
        otherOffers: [],
        dealId: "deal-1",
        conversationId: "c-1",
        now: at(HOUR)
      })
    )
    expect(error).toBeInstanceOf(OfferExpired)
  })
})

describe("request expiry", () => {
  it("creates a request expiring after the TTL it is given", () => {
    expect(right(createRequest(newRequestInput(), T0, 7)).state.expiresAt).toEqual(at(7 * DAY))
  })

  it("shows an active request expired from expiresAt on", () => {
    expect(effectiveRequest(activeRequest(), at(30 * DAY - 1)).status).toBe("active")
    expect(effectiveRequest(activeRequest(), expiresAt).status).toBe("expired")
    const closed = activeRequest({ status: "closed", closedAt: T0 })
    expect(effectiveRequest(closed, expiresAt).status).toBe("closed")
  })

  it("expires an active request past expiresAt, raising RequestExpired; anything else stays", () => {
    expect(expireRequest(activeRequest(), at(30 * DAY - 1))).toBeUndefined()
    const expired = expireRequest(activeRequest(), expiresAt)
    expect(expired?.state.status).toBe("expired")
    expect(expired?.events).toEqual([DomainEvent.RequestExpired({ requestId: "request-1", buyerId: BUYER })])
    expect(expireRequest(activeRequest({ status: "closed", closedAt: T0 }), expiresAt)).toBeUndefined()
  })

  it("reminds once, within the last day before expiry", () => {
    expect(remindOfExpiry(activeRequest(), at(29 * DAY - 1))).toBeUndefined()
    const reminded = remindOfExpiry(activeRequest(), at(29 * DAY))
    expect(reminded?.state.remindedAt).toEqual(at(29 * DAY))
    expect(reminded?.events).toEqual([
      DomainEvent.RequestExpiring({ requestId: "request-1", buyerId: BUYER, expiresAt: expiresAt.toISOString() })
    ])
    expect(remindOfExpiry(activeRequest({ remindedAt: at(29 * DAY) }), at(29 * DAY + HOUR))).toBeUndefined()
    expect(remindOfExpiry(activeRequest(), expiresAt)).toBeUndefined()
  })

  it("extends once by the TTL from the old expiry, owing a new reminder", () => {
    const { state, events } = right(extendRequest(activeRequest({ remindedAt: at(29 * DAY) }), at(29 * DAY), 30))
    expect(state).toMatchObject({ expiresAt: at(60 * DAY), extendedAt: at(29 * DAY), remindedAt: null })
    expect(events.map((e) => e._tag)).toEqual(["RequestExtended"])
    expect(left(extendRequest(state, at(29 * DAY)))).toBeInstanceOf(RequestAlreadyExtended)
    expect(left(extendRequest(activeRequest({ status: "closed", closedAt: T0 }), T0))).toBeInstanceOf(
      RequestAlreadyClosed
    )
    expect(left(extendRequest(activeRequest({ status: "expired" }), T0))).toBeInstanceOf(RequestExpired)
    expect(left(closeRequest(activeRequest({ status: "expired" }), T0))).toBeInstanceOf(RequestExpired)
  })
})
