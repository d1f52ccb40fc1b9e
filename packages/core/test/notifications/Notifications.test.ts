import { describe, expect, it } from "vitest"
import { DomainEvent, notificationsFor } from "../../src/index.js"
import { BUYER, SELLER } from "../support/helpers.js"

describe("notificationsFor", () => {
  it("owes the buyer of the request an offer_created push with the request, offer and conversation ids, collapsed per request and seller", () => {
    const event = DomainEvent.OfferCreated({
      offerId: "offer-1",
      requestId: "request-1",
      sellerId: SELLER,
      buyerId: BUYER,
      conversationId: "conversation-1"
    })
    expect(notificationsFor(event)).toEqual([
      {
        recipientId: BUYER,
        type: "offer_created",
        data: { requestId: "request-1", offerId: "offer-1", conversationId: "conversation-1" },
        collapseKey: `offer_created:request-1:${SELLER}`
      }
    ])
  })

  it("owes both buyer and seller an offer_accepted push with the request, offer and deal ids", () => {
    const event = DomainEvent.OfferAccepted({
      offerId: "offer-1",
      requestId: "request-1",
      sellerId: SELLER,
      buyerId: BUYER,
      dealId: "deal-1"
    })
    const data = { requestId: "request-1", offerId: "offer-1", dealId: "deal-1" }
    expect(notificationsFor(event)).toEqual([
      { recipientId: BUYER, type: "offer_accepted", data },
      { recipientId: SELLER, type: "offer_accepted", data }
    ])
  })

  it("owes an offline recipient a message push with the conversation id, quoting the message", () => {
    const event = DomainEvent.MessageSent({
      messageId: "message-1",
      conversationId: "conversation-1",
      senderId: SELLER,
      recipientId: BUYER,
      recipientOnline: false
    })
    expect(notificationsFor(event)).toEqual([
      { recipientId: BUYER, type: "message", data: { conversationId: "conversation-1" }, messageId: "message-1" }
    ])
  })

  it("owes nothing for a message to a recipient who was online", () => {
    const event = DomainEvent.MessageSent({
      messageId: "message-1",
      conversationId: "conversation-1",
      senderId: SELLER,
      recipientId: BUYER,
      recipientOnline: true
    })
    expect(notificationsFor(event)).toEqual([])
  })

  it("owes the buyer, and only the buyer, a rating_prompt when the deal is completed", () => {
    const event = DomainEvent.DealCompleted({ dealId: "deal-1", buyerId: BUYER, sellerId: SELLER })
    expect(notificationsFor(event)).toEqual([{ recipientId: BUYER, type: "rating_prompt", data: { dealId: "deal-1" } }])
  })

  it("sends every id in data as a string", () => {
    const events = [
      DomainEvent.OfferCreated({ offerId: "o", requestId: "r", sellerId: SELLER, buyerId: BUYER, conversationId: "c" }),
      DomainEvent.OfferAccepted({ offerId: "o", requestId: "r", sellerId: SELLER, buyerId: BUYER, dealId: "d" }),
      DomainEvent.MessageSent({
        messageId: "m",
        conversationId: "c",
        senderId: SELLER,
        recipientId: BUYER,
        recipientOnline: false
      }),
      DomainEvent.DealCompleted({ dealId: "d", buyerId: BUYER, sellerId: SELLER })
    ]
    const values = events.flatMap(notificationsFor).flatMap((n) => Object.values(n.data))
    expect(values.length).toBeGreaterThan(0)
    expect(values.every((value) => typeof value === "string")).toBe(true)
  })

  it.each([
    DomainEvent.RequestCreated({ requestId: "r", buyerId: BUYER }),
    DomainEvent.RequestClosed({ requestId: "r", buyerId: BUYER, reason: "accepted" }),
    DomainEvent.OfferWithdrawn({ offerId: "o", requestId: "r", sellerId: SELLER }),
    DomainEvent.OfferRejected({ offerId: "o", requestId: "r", sellerId: SELLER }),
    DomainEvent.DealCreated({ dealId: "d", requestId: "r", offerId: "o", buyerId: BUYER, sellerId: SELLER }),
    DomainEvent.DealCancelled({ dealId: "d", buyerId: BUYER, sellerId: SELLER, reason: "no show" }),
    DomainEvent.RatingSubmitted({ ratingId: "x", dealId: "d", sellerId: SELLER, rating: 5 }),
    DomainEvent.SellerProfileApproved({ profileId: "p", userId: SELLER })
  ])("owes nothing for $_tag", (event) => {
    expect(notificationsFor(event)).toEqual([])
  })
})
