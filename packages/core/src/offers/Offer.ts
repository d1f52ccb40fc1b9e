import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Deal } from "../deals/Deal.js"
import { type BuyRequest, closeRequest } from "../requests/BuyRequest.js"
import { RequestNotActive } from "../requests/Errors.js"
import { SellerNotApproved } from "../sellers/Errors.js"
import type { SellerProfile } from "../sellers/SellerProfile.js"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition } from "../shared/Transition.js"
import type { Language } from "../shared/Values.js"
import {
  CannotOfferOnOwnRequest,
  CounterLimitReached,
  OfferAlreadyAccepted,
  OfferChanged,
  OfferExpired,
  OfferNotPending
} from "./Errors.js"

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
  revision: Schema.Int.annotations({
    description: "1 when the offer is made, plus one each time its seller revises it (PATCH /offers/{id})"
  }),
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

/** What a seller gives to make an offer: every field but the status, revision and creation time, which making it sets. */
export type NewOffer = Omit<Offer, "status" | "revision" | "createdAt">

/** The most counters a buyer may make on one offer. */
export const OFFER_COUNTER_LIMIT = 3

/** A price the buyer proposed on a pending offer, answering the offer as it was at `revision`. */
export const OfferCounter = Schema.Struct({
  id: Schema.UUID,
  offerId: Schema.UUID,
  price: Schema.Number,
  note: Schema.NullOr(Schema.String),
  revision: Schema.Int.annotations({ description: "The offer's revision the counter answers" }),
  createdAt: Schema.DateFromSelf
})
export interface OfferCounter extends Schema.Schema.Type<typeof OfferCounter> {}

/** What happened to an offer, in its history: made, countered, revised, and how it ended. */
export const OfferEventType = Schema.Literal("created", "countered", "revised", "accepted", "rejected", "withdrawn")
export type OfferEventType = typeof OfferEventType.Type

/** The side of a bargain: the request's owner or the offer's seller. */
export const BargainParty = Schema.Literal("buyer", "seller")
export type BargainParty = typeof BargainParty.Type

/** One line of an offer's history: what happened, at which price and revision, by whom. */
export const OfferEvent = Schema.Struct({
  offerId: Schema.UUID,
  type: OfferEventType,
  price: Schema.Number.annotations({
    description: "The price on the table after the event (a counter's own price for `countered`)"
  }),
  by: BargainParty,
  revision: Schema.Int,
  createdAt: Schema.DateFromSelf
})
export interface OfferEvent extends Schema.Schema.Type<typeof OfferEvent> {}

/**
 * The statuses that end an offer in its history, with the side whose move it was: accepted by the buyer, rejected on
 * the buyer's side (another offer accepted, the request closed or expired, the seller suspended), withdrawn by the
 * seller. An expiry is not a move of either and is not in the history.
 */
export const endingMoves: Partial<Record<OfferStatus, BargainParty>> = {
  accepted: "buyer",
  rejected: "buyer",
  withdrawn: "seller"
}

/** The history line of an offer that ends (accepted, rejected, withdrawn) at `at`; none for an expiry. */
export const statusEventOf = (offer: Pick<Offer, "id" | "status" | "price" | "revision">, at: Date) =>
  Option.map(
    Option.fromNullable(endingMoves[offer.status]),
    (by): OfferEvent => ({
      offerId: offer.id,
      type: offer.status as OfferEventType,
      price: offer.price,
      by,
      revision: offer.revision,
      createdAt: at
    })
  )

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
  const offer: Offer = { ...input, status: "pending", revision: 1, createdAt: args.now }
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
  /** The revision the buyer saw; when the offer has another, nothing is accepted (`OfferChanged`). */
  readonly expectedRevision?: number | undefined
}): Transition<
  { readonly offer: Offer; readonly request: BuyRequest; readonly rejected: ReadonlyArray<Offer>; readonly deal: Deal },
  OfferAlreadyAccepted | OfferExpired | OfferNotPending | OfferChanged | RequestNotActive
> => {
  const { offer, request, now } = args
  if (offer.status === "accepted") return Either.left(new OfferAlreadyAccepted())
  if (offer.status === "expired" || offerLapsed(offer, now)) return Either.left(new OfferExpired())
  if (offer.status !== "pending") return Either.left(new OfferNotPending())
  if (args.sellerProfile?.status !== "approved") return Either.left(new OfferNotPending())
  if (args.expectedRevision !== undefined && args.expectedRevision !== offer.revision) {
    return Either.left(new OfferChanged({ expected: args.expectedRevision, revision: offer.revision }))
  }
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

/** What a seller may change of a pending offer; at least one of them. */
export interface OfferChanges {
  readonly price?: number | undefined
  readonly availability?: string | undefined
  readonly conditionNotes?: string | null | undefined
  readonly warrantyNotes?: string | null | undefined
}

/** The parties and conversation of an offer, which its bargaining events name. */
interface BargainScene {
  readonly buyerId: string
  readonly conversationId: string
}

/**
 * The request's owner proposes `price` on a pending offer of an active request, at most
 * {@link OFFER_COUNTER_LIMIT} times per offer (`countersSoFar` made already). The offer keeps its price and
 * revision; the counter answers the revision it saw, so a revision clears it.
 */
export const counterOffer = (args: {
  readonly offer: Offer
  readonly request: Pick<BuyRequest, "status">
  readonly scene: BargainScene
  readonly countersSoFar: number
  readonly counterId: string
  readonly price: number
  readonly note: string | null
  readonly now: Date
}): Transition<
  { readonly counter: OfferCounter; readonly history: OfferEvent },
  RequestNotActive | OfferNotPending | CounterLimitReached
> => {
  const { offer, now } = args
  if (args.request.status !== "active") return Either.left(new RequestNotActive())
  if (offer.status !== "pending") return Either.left(new OfferNotPending())
  if (args.countersSoFar >= OFFER_COUNTER_LIMIT)
    return Either.left(new CounterLimitReached({ max: OFFER_COUNTER_LIMIT }))
  const counter: OfferCounter = {
    id: args.counterId,
    offerId: offer.id,
    price: args.price,
    note: args.note,
    revision: offer.revision,
    createdAt: now
  }
  return moved(
    {
      counter,
      history: {
        offerId: offer.id,
        type: "countered",
        price: args.price,
        by: "buyer",
        revision: offer.revision,
        createdAt: now
      }
    },
    [
      DomainEvent.OfferCountered({
        offerId: offer.id,
        requestId: offer.requestId,
        sellerId: offer.sellerId,
        buyerId: args.scene.buyerId,
        conversationId: args.scene.conversationId,
        counterId: counter.id
      })
    ]
  )
}

/**
 * The seller changes a pending offer: the fields given take their new values and the revision goes up by one,
 * which also takes any counter off the table (it answered the revision before).
 */
export const reviseOffer = (args: {
  readonly offer: Offer
  readonly changes: OfferChanges
  readonly scene: BargainScene
  readonly now: Date
}): Transition<{ readonly offer: Offer; readonly history: OfferEvent }, OfferNotPending> => {
  const { offer, changes, now } = args
  if (offer.status !== "pending") return Either.left(new OfferNotPending())
  const revised: Offer = {
    ...offer,
    price: changes.price ?? offer.price,
    availability: changes.availability ?? offer.availability,
    conditionNotes: changes.conditionNotes === undefined ? offer.conditionNotes : changes.conditionNotes,
    warrantyNotes: changes.warrantyNotes === undefined ? offer.warrantyNotes : changes.warrantyNotes,
    revision: offer.revision + 1
  }
  return moved(
    {
      offer: revised,
      history: {
        offerId: offer.id,
        type: "revised",
        price: revised.price,
        by: "seller",
        revision: revised.revision,
        createdAt: now
      }
    },
    [
      DomainEvent.OfferRevised({
        offerId: offer.id,
        requestId: offer.requestId,
        sellerId: offer.sellerId,
        buyerId: args.scene.buyerId,
        conversationId: args.scene.conversationId,
        revision: revised.revision
      })
    ]
  )
}

/** The history line of an offer being made. */
export const createdEventOf = (offer: Offer): OfferEvent => ({
  offerId: offer.id,
  type: "created",
  price: offer.price,
  by: "seller",
  revision: offer.revision,
  createdAt: offer.createdAt
})

const bargainTemplates = {
  counter: { ar: "سعر مقترح من المشتري: ", en: "The buyer proposes: " },
  revision: { ar: "عرض معدّل من البائع: ", en: "The seller revised the offer: " }
} as const

/**
 * The text of the chat message a counter or a revision posts, in the language of the party who made it: the
 * price (as pushes write it), then the counter's note on the next line.
 */
export const bargainMessageText = (
  kind: "counter" | "revision",
  price: number,
  note: string | null,
  language: Language
) => {
  const line = `${bargainTemplates[kind][language]}${price.toLocaleString("en-US", { maximumFractionDigits: 2 })}`
  return note === null || note === "" ? line : `${line}\n${note}`
}
