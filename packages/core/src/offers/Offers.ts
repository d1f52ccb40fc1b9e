import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { storeInLockedConversation } from "../chat/Chat.js"
import { withoutContactDetails } from "../chat/ContactMasking.js"
import type { LockedConversation, Message } from "../chat/Conversation.js"
import { ConversationRepo, MessageRepo } from "../chat/Repo.js"
import { DealRepo } from "../deals/Repo.js"
import { attachImages, ImageIds, MAX_OFFER_PHOTOS } from "../images/Images.js"
import { ImageRepo } from "../images/Repo.js"
import { Ids } from "../platform/Ids.js"
import { effectiveRequest, priceOutsideBudget } from "../requests/BuyRequest.js"
import { requireRequestOwner } from "../requests/Policy.js"
import { RequestRepo } from "../requests/Repo.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { ValidationFailed } from "../shared/Errors.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { DateTimeField, FreeText, fieldRule, Money, NumberField, Optional, Text, UuidField } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { DuplicatePendingOffer } from "./Errors.js"
import {
  acceptOffer,
  type BargainParty,
  bargainMessageText,
  counterOffer,
  createdEventOf,
  createOffer,
  effectiveOfferOn,
  expireLapsedOffers,
  type NewOffer,
  type Offer,
  type OfferCounter,
  reviseOffer,
  validUntilInRange,
  withdrawOffer
} from "./Offer.js"
import { requireOfferOwner, requireOfferParty } from "./Policy.js"
import { OfferRepo } from "./Repo.js"

/** What a seller writes to offer on a request, with the rule of each field. */
export const OfferInput = Schema.Struct({
  requestId: UuidField,
  price: Money,
  availability: Text(1, 200),
  conditionNotes: Optional(FreeText(0, 2000)),
  warrantyNotes: Optional(FreeText(0, 2000)),
  /** Past this instant the offer expires; at least an hour and at most 30 days ahead (else `ValidationFailed`). */
  validUntil: Optional(DateTimeField),
  /** The seller's own unattached images of the device, shown in this order (docs/DECISIONS.md, "Photos"). */
  photoIds: Optional(ImageIds(MAX_OFFER_PHOTOS))
})
export type OfferInput = typeof OfferInput.Type

/**
 * What the request's owner writes to counter an offer: the price they propose and a note, which the seller reads
 * on the offer before any deal, so it may not hold contact details.
 */
export const CounterInput = Schema.Struct({
  price: Money,
  note: Optional(withoutContactDetails(FreeText(0, 500)))
})
export type CounterInput = typeof CounterInput.Type

/**
 * What the seller may change of a pending offer; at least one field (else `ValidationFailed` on `body`). A note
 * given as null is cleared.
 */
export const OfferRevision = Schema.Struct({
  price: Schema.optional(Money),
  availability: Schema.optional(Text(1, 200)),
  conditionNotes: Schema.optional(Schema.NullOr(FreeText(0, 2000))),
  warrantyNotes: Schema.optional(Schema.NullOr(FreeText(0, 2000)))
})
export type OfferRevision = typeof OfferRevision.Type

/** The largest revision an offer may have (the column is a 4-byte integer). */
const REVISION_MAX = 2_147_483_647

/** What the buyer may say when accepting: the offer's revision they saw (`expectedRevision`). */
export const AcceptInput = Schema.Struct({
  expectedRevision: Optional(
    NumberField.pipe(
      Schema.filter((n) => Number.isInteger(n) && n >= 1 && n <= REVISION_MAX, {
        ...fieldRule("integer_range", { min: 1, max: REVISION_MAX }),
        jsonSchema: { type: "integer", minimum: 1, maximum: REVISION_MAX }
      })
    )
  )
})
export type AcceptInput = typeof AcceptInput.Type

/** A counter or a revision with the chat message it posted, and the conversation as locked for it. */
export interface Bargained<A> {
  readonly result: A
  readonly conversation: LockedConversation
  readonly message: Message
}

const foundRequest = requireFound("request")

/** An offer's `validUntil`, when given, at least an hour and at most 30 days after `now` (else `ValidationFailed`). */
export const requireValidUntilInRange = (input: Pick<OfferInput, "validUntil">, now: Date) =>
  (input.validUntil ?? null) === null || validUntilInRange(input.validUntil!, now)
    ? Effect.void
    : Effect.fail(ValidationFailed.field("valid_until", "valid_until_range", { min_hours: 1, max_days: 30 }))

/** The new offer of `sellerId` from what they wrote; a note or validity left out is stored as null. */
export const newOfferOf = (id: string, sellerId: string, input: OfferInput): NewOffer => ({
  id,
  requestId: input.requestId,
  sellerId,
  price: input.price,
  availability: input.availability,
  conditionNotes: input.conditionNotes ?? null,
  warrantyNotes: input.warrantyNotes ?? null,
  validUntil: input.validUntil ?? null
})
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
    const messages = yield* MessageRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const images = yield* ImageRepo

    /** An approved seller offers on somebody else's active request; the pair's conversation opens with it. */
    const create = (seller: User, input: OfferInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          yield* requireValidUntilInRange(input, at)
          const profile = Option.getOrNull(yield* profiles.lockSharedByUserId(seller.id))
          const locked = yield* foundRequest(yield* requests.lock(input.requestId))
          // Offers that lapsed are written down first: they leave offer_count and free their seller to offer again.
          const lapsed = expireLapsedOffers(locked, yield* offers.lockLapsed(locked.id, at), at)
          yield* offers.updateStatus(lapsed.expired, at)
          const request = effectiveRequest(lapsed.request, at)
          const conversationId = yield* ids.next
          const { state, events } = yield* createOffer({
            input: newOfferOf(yield* ids.next, seller.id, input),
            request,
            sellerProfile: profile,
            conversationId,
            now: at
          })
          if (!(yield* offers.insertUnlessPending(state.offer))) return yield* Effect.fail(new DuplicatePendingOffer())
          yield* attachImages(images, seller, input.photoIds, { kind: "offer", id: state.offer.id }, "photo_ids")
          yield* offers.appendHistory([createdEventOf(state.offer)])
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
          return {
            offer: state.offer,
            buyerId: request.buyerId,
            outsideBudget: priceOutsideBudget(request, state.offer.price)
          }
        })
      )

    /**
     * The request's owner accepts a pending offer: the deal is made, the offer accepted, every other
     * pending offer rejected and the request closed, in one transaction. Of simultaneous accepts on one
     * request the first to lock the request wins; the others then see it closed and their offer no
     * longer pending. An offer whose seller is no longer approved is not accepted (`OfferNotPending`).
     */
    const accept = (caller: User, offerId: string, input: AcceptInput | null = null) =>
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
            now: at,
            expectedRevision: input?.expectedRevision
          })
          yield* offers.updateStatus([...others.expired, ...state.rejected, state.offer], at)
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
          yield* offers.updateStatus([state.offer], at)
          yield* requests.update(state.request)
          yield* outbox.append(events, at)
        })
      )

    /**
     * Locks an offer for a bargaining move by `side` (the request's owner, or the offer's seller): its request
     * first (so the move queues with accepts, withdrawals and closes), then the offer and its conversation (the
     * lock order). The offer and request are answered as clients see them at that moment.
     */
    const lockForBargain = (caller: User, offerId: string, side: BargainParty) =>
      Effect.gen(function* () {
        const at = yield* currentDate
        const seen = yield* foundOffer(yield* offers.findById(offerId))
        if (side === "seller") yield* requireOfferOwner(seen, caller)
        const lockedRequest = yield* foundRequest(yield* requests.lock(seen.requestId))
        if (side === "buyer") yield* requireRequestOwner(lockedRequest, caller)
        const request = effectiveRequest(lockedRequest, at)
        const offer = effectiveOfferOn(yield* foundOffer(yield* offers.lock(seen.id)), lockedRequest, at)
        const conversation = yield* Effect.flatMap(conversations.findByOfferId(offer.id), (found) =>
          Option.isSome(found) ? conversations.lock(found.value.id) : Effect.succeedNone
        )
        if (Option.isNone(conversation)) return yield* Effect.dieMessage(`offer ${offer.id} has no conversation`)
        return { at, request, offer, conversation: conversation.value }
      })

    /** Posts the chat message of a counter or revision, in the conversation locked for it. */
    const postBargainMessage = (
      conversation: LockedConversation,
      senderId: string,
      kind: "counter" | "revision",
      messageText: string,
      at: Date
    ) =>
      Effect.gen(function* () {
        const id = yield* ids.next
        const stored = yield* storeInLockedConversation(
          messages,
          conversation,
          { id, senderId, kind, messageText, clientId: null },
          at
        )
        return stored.message
      })

    /**
     * The request's owner proposes a price on a pending offer of an active request (at most three times per
     * offer). The offer keeps its price and revision; the counter is posted to the offer's conversation as a
     * `counter` message, and `offer_countered` is owed to the seller, all in one transaction.
     */
    const counter = (caller: User, offerId: string, input: CounterInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const { at, conversation, offer, request } = yield* lockForBargain(caller, offerId, "buyer")
          const note = input.note ?? null
          const { state, events } = yield* counterOffer({
            offer,
            request,
            scene: { buyerId: request.buyerId, conversationId: conversation.id },
            countersSoFar: yield* offers.countCounters(offer.id),
            counterId: yield* ids.next,
            price: input.price,
            note,
            now: at
          })
          yield* offers.insertCounter(state.counter)
          yield* offers.appendHistory([state.history])
          const message = yield* postBargainMessage(
            conversation,
            caller.id,
            "counter",
            bargainMessageText("counter", input.price, note, caller.language),
            at
          )
          yield* outbox.append(events, at)
          const countered: Bargained<OfferCounter> = { result: state.counter, conversation, message }
          return countered
        })
      )

    /**
     * The seller changes a pending offer (any of price, availability and the notes): its revision goes up by one
     * and any counter is cleared. The revision is posted to the offer's conversation as a `revision` message, and
     * `offer_revised` is owed to the buyer, all in one transaction.
     */
    const revise = (caller: User, offerId: string, input: OfferRevision) =>
      Effect.gen(function* () {
        if (Object.keys(OfferRevision.fields).every((key) => input[key as keyof OfferRevision] === undefined)) {
          return yield* Effect.fail(
            ValidationFailed.field("body", "revision_needs_a_field", {
              fields: "price, availability, condition_notes, warranty_notes"
            })
          )
        }
        return yield* transactor.transaction(
          Effect.gen(function* () {
            const { at, conversation, offer, request } = yield* lockForBargain(caller, offerId, "seller")
            const { state, events } = yield* reviseOffer({
              offer,
              changes: input,
              scene: { buyerId: request.buyerId, conversationId: conversation.id },
              now: at
            })
            yield* offers.revise(state.offer)
            yield* offers.appendHistory([state.history])
            const message = yield* postBargainMessage(
              conversation,
              caller.id,
              "revision",
              bargainMessageText("revision", state.offer.price, null, caller.language),
              at
            )
            yield* outbox.append(events, at)
            const revised: Bargained<Offer> = { result: state.offer, conversation, message }
            return revised
          })
        )
      })

    /** An offer's history, oldest first, for the request's owner and the offer's seller. */
    const history = (caller: User, offerId: string) =>
      Effect.gen(function* () {
        const offer = yield* foundOffer(yield* offers.findById(offerId))
        const request = yield* foundRequest(yield* requests.findById(offer.requestId))
        yield* requireOfferParty(offer, request, caller)
        return yield* offers.history(offer.id)
      })

    return { create, accept, withdraw, counter, revise, history } as const
  })
}) {}
