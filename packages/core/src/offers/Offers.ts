import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ConversationRepo } from "../chat/Repo.js"
import { DealRepo } from "../deals/Repo.js"
import { Ids } from "../platform/Ids.js"
import { effectiveRequest, priceOutsideBudget } from "../requests/BuyRequest.js"
import { requireRequestOwner } from "../requests/Policy.js"
import { RequestRepo } from "../requests/Repo.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { ValidationFailed } from "../shared/Errors.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { DateTimeField, FreeText, Money, Optional, Text, UuidField } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { DuplicatePendingOffer } from "./Errors.js"
import {
  acceptOffer,
  createOffer,
  effectiveOfferOn,
  expireLapsedOffers,
  validUntilInRange,
  withdrawOffer
} from "./Offer.js"
import { requireOfferOwner } from "./Policy.js"
import { OfferRepo } from "./Repo.js"

/** What a seller writes to offer on a request, with the rule of each field. */
export const OfferInput = Schema.Struct({
  requestId: UuidField,
  price: Money,
  availability: Text(1, 200),
  conditionNotes: Optional(FreeText(0, 2000)),
  warrantyNotes: Optional(FreeText(0, 2000)),
  /** Past this instant the offer expires; at least an hour and at most 30 days ahead (else `ValidationFailed`). */
  validUntil: Optional(DateTimeField)
})
export type OfferInput = typeof OfferInput.Type

const foundRequest = requireFound("request")
const foundOffer = requireFound("offer")

/**
 * The offer workflows: make, accept, withdraw. Every one that changes offers locks their request first, so
 * of racing offers, withdrawals, closes and accepts on one request each sees the others' committed result.
 * Offer and accept also hold the seller's profile (shared, taken before the request: the lock order of the
 * repository ports), so a suspension committing meanwhile either waits for them or is seen by them.
 */
export class Offers extends Effect.Service<Offers>()("@talab/core/Offers", {
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const offers = yield* OfferRepo
    const profiles = yield* SellerProfileRepo
    const conversations = yield* ConversationRepo
    const deals = yield* DealRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids

    /** An approved seller offers on somebody else's active request; the pair's conversation opens with it. */
    const create = (seller: User, input: OfferInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const validUntil = input.validUntil ?? null
          if (validUntil !== null && !validUntilInRange(validUntil, at)) {
            return yield* Effect.fail(
              ValidationFailed.field("valid_until", "valid_until_range", { min_hours: 1, max_days: 30 })
            )
          }
          const profile = Option.getOrNull(yield* profiles.lockSharedByUserId(seller.id))
          const locked = yield* foundRequest(yield* requests.lock(input.requestId))
          // Offers that lapsed are written down first: they leave offer_count and free their seller to offer again.
          const lapsed = expireLapsedOffers(locked, yield* offers.lockLapsed(locked.id, at), at)
          yield* offers.updateStatus(lapsed.expired)
          const request = effectiveRequest(lapsed.request, at)
          const conversationId = yield* ids.next
          const { state, events } = yield* createOffer({
            input: {
              id: yield* ids.next,
              requestId: request.id,
              sellerId: seller.id,
              price: input.price,
              availability: input.availability,
              // A note or validity left out is stored as null.
              conditionNotes: input.conditionNotes ?? null,
              warrantyNotes: input.warrantyNotes ?? null,
              validUntil
            },
            request,
            sellerProfile: profile,
            conversationId,
            now: at
          })
          if (!(yield* offers.insertUnlessPending(state.offer))) return yield* Effect.fail(new DuplicatePendingOffer())
          yield* conversations.insert({
            id: conversationId,
            offerId: state.offer.id,
            buyerId: request.buyerId,
            sellerId: seller.id,
            createdAt: at,
            lastMessageAt: null
          })
          yield* requests.update(state.request)
          yield* outbox.append([...lapsed.events, ...events], at)
          return { offer: state.offer, outsideBudget: priceOutsideBudget(request, state.offer.price) }
        })
      )

    /**
     * The request's owner accepts a pending offer: the deal is made, the offer accepted, every other
     * pending offer rejected and the request closed, in one transaction. Of simultaneous accepts on one
     * request the first to lock the request wins; the others then see it closed and their offer no
     * longer pending. An offer whose seller is no longer approved is not accepted (`OfferNotPending`).
     */
    const accept = (caller: User, offerId: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const seen = yield* foundOffer(yield* offers.findById(offerId))
          const sellerProfile = Option.getOrNull(yield* profiles.lockSharedByUserId(seen.sellerId))
          const lockedRequest = yield* foundRequest(yield* requests.lock(seen.requestId))
          yield* requireRequestOwner(lockedRequest, caller)
          // The offer accepted is checked as it was (a lapsed one is OFFER_EXPIRED); its lapsed rivals leave the count.
          const locked = yield* offers.lockByRequest(lockedRequest.id)
          // As clients see it: pending on a request that expired by the clock, it is rejected already.
          const offer = effectiveOfferOn(locked.find((o) => o.id === seen.id) ?? seen, lockedRequest, at)
          const others = expireLapsedOffers(
            lockedRequest,
            locked.filter((o) => o.id !== offer.id),
            at
          )
          const request = effectiveRequest(others.request, at)
          const conversation = yield* conversations.findByOfferId(offer.id)
          if (Option.isNone(conversation)) return yield* Effect.dieMessage(`offer ${offer.id} has no conversation`)
          const { state, events } = yield* acceptOffer({
            offer,
            request,
            sellerProfile,
            otherOffers: others.offers,
            dealId: yield* ids.next,
            conversationId: conversation.value.id,
            now: at
          })
          yield* offers.updateStatus([...others.expired, ...state.rejected, state.offer])
          yield* requests.update(state.request)
          yield* deals.insert(state.deal)
          yield* outbox.append([...others.events, ...events], at)
          return state.deal
        })
      )

    /** The seller withdraws a pending offer; the request's offer count drops and they may offer again. */
    const withdraw = (caller: User, offerId: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const seen = yield* foundOffer(yield* offers.findById(offerId))
          yield* requireOfferOwner(seen, caller)
          const request = yield* foundRequest(yield* requests.lock(seen.requestId))
          // A lapsed offer is expired already, and a pending one of an expired request rejected: OFFER_NOT_PENDING.
          const offer = effectiveOfferOn(yield* foundOffer(yield* offers.lock(seen.id)), request, at)
          const { state, events } = yield* withdrawOffer(offer, request)
          yield* offers.updateStatus([state.offer])
          yield* requests.update(state.request)
          yield* outbox.append(events, at)
        })
      )

    return { create, accept, withdraw } as const
  })
}) {}
