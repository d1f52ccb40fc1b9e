import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Offer, OfferCounter, OfferEvent } from "./Offer.js"

/** Port: stores offers; at most one pending offer per seller and request. */
export class OfferRepo extends Context.Tag("@talab/core/OfferRepo")<
  OfferRepo,
  {
    /**
     * Inserts a pending offer unless its seller already has one pending on the request (committed, or
     * committing meanwhile); answers whether it did. The check and the insert are one statement.
     */
    readonly insertUnlessPending: (offer: Offer) => Effect.Effect<boolean>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Offer>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Offer>>
    /** Every offer of a request, locked for update; lock the request first, so racing transitions queue on it. */
    readonly lockByRequest: (requestId: string) => Effect.Effect<ReadonlyArray<Offer>>
    /** A request's pending offers whose `valid_until` is at or before `now`, locked; lock the request first. */
    readonly lockLapsed: (requestId: string, now: Date) => Effect.Effect<ReadonlyArray<Offer>>
    /** A seller's pending offers on every request, locked for update; lock the seller's profile first. */
    readonly lockPendingBySeller: (sellerId: string) => Effect.Effect<ReadonlyArray<Offer>>
    /** The ids of the seller's offers stored as `pending` (unlocked: each is locked as it is withdrawn). */
    readonly pendingIdsOfSeller: (sellerId: string) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Writes the offers' new statuses. With `at`, the statuses that end an offer (accepted, rejected, withdrawn)
     * are also added to its history, at that time, with the offer's price and revision as stored.
     */
    readonly updateStatus: (offers: ReadonlyArray<Pick<Offer, "id" | "status">>, at?: Date) => Effect.Effect<void>
    /** Writes a revised offer's terms (price, availability, notes) and revision; lock it first. */
    readonly revise: (offer: Offer) => Effect.Effect<void>
    /** Stores a counter of the buyer's. */
    readonly insertCounter: (counter: OfferCounter) => Effect.Effect<void>
    /** How many counters an offer has had; lock the offer first. */
    readonly countCounters: (offerId: string) => Effect.Effect<number>
    /** Adds lines to offers' histories. */
    readonly appendHistory: (events: ReadonlyArray<OfferEvent>) => Effect.Effect<void>
    /** An offer's history, oldest first. */
    readonly history: (offerId: string) => Effect.Effect<ReadonlyArray<OfferEvent>>
  }
>() {}
