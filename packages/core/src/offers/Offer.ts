import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Deal } from "../deals/Deal.js"
import { type BuyRequest, closeRequest } from "../requests/BuyRequest.js"
import { RequestNotActive } from "../requests/Errors.js"
import { SellerNotApproved } from "../sellers/Errors.js"
import type { SellerProfile } from "../sellers/SellerProfile.js"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition } from "../shared/Transition.js"
import { CannotOfferOnOwnRequest, OfferAlreadyAccepted, OfferExpired, OfferNotPending } from "./Errors.js"

/**
 * Where an offer stands: `pending` until the buyer answers; `accepted` (a deal is made), `rejected` (another offer
 * was accepted, the request closed or expired, or its seller was suspended), `withdrawn` by its seller, or
 * `expired` past its `validUntil`.
 */
export const OfferStatus = Schema.Literal("pending", "accepted", "rejected", "withdrawn", "expired")
export type OfferStatus = typeof OfferStatus.Type

/** A seller's answer to a buy request. */
export const Offer = Schema.Struct({
  id: Schema.UUID,
  requestId: Schema.UUID,
  sellerId: Schema.UUID,
  price: Schema.Number,
  availability: Schema.String,
  conditionNotes: Schema.NullOr(Schema.String),
  warrantyNotes: Schema.NullOr(Schema.String),
  status: OfferStatus,
  createdAt: Schema.DateFromSelf,
  validUntil: Schema.NullOr(Schema.DateFromSelf).annotations({
    description: "Past this instant a pending offer is `expired` (null: valid while the request is active)"
  })
})
export interface Offer extends Schema.Schema.Type<typeof Offer> {}

/** What a seller gives to make an offer: every field but the status and creation time, which making it sets. */
export type NewOffer = Omit<Offer, "status" | "createdAt">

const HOUR_MS = 60 * 60 * 1000

/** The range of an offer's `valid_until`, from the moment it is made. */
export const OFFER_VALIDITY = { minMs: HOUR_MS, maxMs: 30 * 24 * HOUR_MS } as const

/** Whether a `valid_until` lies in the allowed range from `now` (at least an hour, at most 30 days ahead). */
export const validUntilInRange = (validUntil: Date, now: Date) => {
  const ahead = validUntil.getTime() - now.getTime()
  return ahead >= OFFER_VALIDITY.minMs && ahead <= OFFER_VALIDITY.maxMs
}

/** Whether a pending offer's validity has passed at `now`. */
export const offerLapsed = (offer: Offer, now: Date) =>
  offer.status === "pending" && offer.validUntil !== null && offer.validUntil.getTime() <= now.getTime()

/**
 * The offer as the API shows it at `now` beside its request: lapsed, it is `expired`; pending on a request that
 * expired (by the clock), it is `rejected`, as the expiry job will write it.
 */
export const effectiveOfferOn = (offer: Offer, request: Pick<BuyRequest, "status" | "expiresAt">, now: Date): Offer =>
  offerLapsed(offer, now)
    ? { ...offer, status: "expired" }
    : offer.status === "pending" &&
        (request.status === "expired" || (request.status === "active" && request.expiresAt.getTime() <= now.getTime()))
      ? { ...offer, status: "rejected" }
      : offer

/**
 * Writes down what the clock already says: the request's pending offers past their `valid_until` become
 * `expired` and leave its `offer_count`. Run on the locked offers of a locked request, before any transition
 * that reads them, so an offer that lapsed is never rejected, accepted or counted.
 */
export const expireLapsedOffers = (request: BuyRequest, offers: ReadonlyArray<Offer>, now: Date) => {
  const expired = offers.filter((o) => offerLapsed(o, now)).map((o): Offer => ({ ...o, status: "expired" }))
  const byId = new Map(expired.map((o) => [o.id, o]))
  return {
    request: { ...request, offerCount: Math.max(0, request.offerCount - expired.length) },
    offers: offers.map((o) => byId.get(o.id) ?? o),
    expired,
    events: expired.map((o) =>
      DomainEvent.OfferExpired({ offerId: o.id, requestId: o.requestId, sellerId: o.sellerId })
    )
  }
}

/**
 * An approved seller offers on an active request of somebody else. The conversation between buyer and seller
 * is created with the offer. One pending offer per seller and request is the repository's rule
 * (`OfferRepo.insertUnlessPending`): only the insert also sees an offer committed meanwhile.
 */
export const createOffer = (args: {
  readonly input: NewOffer
  readonly request: BuyRequest
  readonly sellerProfile: Pick<SellerProfile, "status"> | null
  readonly conversationId: string
  readonly now: Date
}): Transition<
  { readonly offer: Offer; readonly request: BuyRequest },
  SellerNotApproved | RequestNotActive | CannotOfferOnOwnRequest
> => {
  const { input, request } = args
  if (args.sellerProfile?.status !== "approved") return Either.left(new SellerNotApproved())
  if (request.buyerId === input.sellerId) return Either.left(new CannotOfferOnOwnRequest())
  if (request.status !== "active") return Either.left(new RequestNotActive())
  const offer: Offer = { ...input, status: "pending", createdAt: args.now }
  return moved({ offer, request: { ...request, offerCount: request.offerCount + 1 } }, [
    DomainEvent.OfferCreated({
      offerId: offer.id,
      requestId: request.id,
      sellerId: offer.sellerId,
      buyerId: request.buyerId,
      conversationId: args.conversationId
    })
  ])
}

/** The seller withdraws a pending offer; the request's offer count drops by one. */
export const withdrawOffer = (
  offer: Offer,
  request: BuyRequest
): Transition<{ readonly offer: Offer; readonly request: BuyRequest }, OfferAlreadyAccepted | OfferNotPending> => {
  if (offer.status === "accepted") return Either.left(new OfferAlreadyAccepted())
  if (offer.status !== "pending") return Either.left(new OfferNotPending())
  return moved(
    {
      offer: { ...offer, status: "withdrawn" },
      request: { ...request, offerCount: Math.max(0, request.offerCount - 1) }
    },
    [DomainEvent.OfferWithdrawn({ offerId: offer.id, requestId: offer.requestId, sellerId: offer.sellerId })]
  )
}

/**
 * Pending offers become rejected: a request's others when one is accepted or the owner closes it, and a
 * seller's on every request when the seller is suspended.
 */
export const rejectPendingOffers = (offers: ReadonlyArray<Offer>, exceptOfferId?: string) => {
  const rejected = offers
    .filter((o) => o.status === "pending" && o.id !== exceptOfferId)
    .map((o): Offer => ({ ...o, status: "rejected" }))
  return {
    rejected,
    events: rejected.map((o) =>
      DomainEvent.OfferRejected({ offerId: o.id, requestId: o.requestId, sellerId: o.sellerId })
    )
  }
}

/**
 * The buyer accepts a pending offer of an active request: a deal is made, the offer is accepted, every
 * other pending offer is rejected and the request is closed — all in one transition. The offer's seller
 * must still be approved: a suspended seller's offer is no longer on the table (`OfferNotPending`).
 */
export const acceptOffer = (args: {
  readonly offer: Offer
  readonly request: BuyRequest
  readonly sellerProfile: Pick<SellerProfile, "status"> | null
  readonly otherOffers: ReadonlyArray<Offer>
  readonly dealId: string
  readonly conversationId: string
  readonly now: Date
}): Transition<
  { readonly offer: Offer; readonly request: BuyRequest; readonly rejected: ReadonlyArray<Offer>; readonly deal: Deal },
  OfferAlreadyAccepted | OfferExpired | OfferNotPending | RequestNotActive
> => {
  const { offer, request, now } = args
  if (offer.status === "accepted") return Either.left(new OfferAlreadyAccepted())
  if (offer.status === "expired" || offerLapsed(offer, now)) return Either.left(new OfferExpired())
  if (offer.status !== "pending") return Either.left(new OfferNotPending())
  if (args.sellerProfile?.status !== "approved") return Either.left(new OfferNotPending())
  const closed = closeRequest(request, now, "accepted")
  if (Either.isLeft(closed)) return Either.left(new RequestNotActive())
  const { rejected, events: rejectedEvents } = rejectPendingOffers(args.otherOffers, offer.id)
  const deal: Deal = {
    id: args.dealId,
    requestId: request.id,
    offerId: offer.id,
    buyerId: request.buyerId,
    sellerId: offer.sellerId,
    conversationId: args.conversationId,
    status: "accepted",
    createdAt: now,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    cancelDescription: null
  }
  return moved({ offer: { ...offer, status: "accepted" }, request: closed.right.state, rejected, deal }, [
    DomainEvent.OfferAccepted({
      offerId: offer.id,
      requestId: request.id,
      sellerId: offer.sellerId,
      buyerId: request.buyerId,
      dealId: deal.id
    }),
    DomainEvent.DealCreated({
      dealId: deal.id,
      requestId: request.id,
      offerId: offer.id,
      buyerId: deal.buyerId,
      sellerId: deal.sellerId
    }),
    ...closed.right.events,
    ...rejectedEvents
  ])
}
