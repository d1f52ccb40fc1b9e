import * as Data from "effect/Data"

/** The seller already has a pending offer on this request; it must be withdrawn (or answered) before another. */
export class DuplicatePendingOffer extends Data.TaggedError("DuplicatePendingOffer")<{}> {
  readonly code = "DUPLICATE_PENDING_OFFER" as const
}

/** The offer was accepted already, so it can be neither accepted again nor withdrawn. */
export class OfferAlreadyAccepted extends Data.TaggedError("OfferAlreadyAccepted")<{}> {
  readonly code = "OFFER_ALREADY_ACCEPTED" as const
}

/**
 * The offer is no longer pending (rejected or withdrawn; expired, for a withdrawal), or its seller is no longer
 * approved: it can be neither accepted nor withdrawn.
 */
export class OfferNotPending extends Data.TaggedError("OfferNotPending")<{}> {
  readonly code = "OFFER_NOT_PENDING" as const
}

/** A seller tried to make an offer on a buy request of their own. */
export class CannotOfferOnOwnRequest extends Data.TaggedError("CannotOfferOnOwnRequest")<{}> {
  readonly code = "CANNOT_OFFER_ON_OWN_REQUEST" as const
}

/** The offer's `valid_until` has passed. */
export class OfferExpired extends Data.TaggedError("OfferExpired")<{}> {
  readonly code = "OFFER_EXPIRED" as const
}

/** The buyer already countered this offer the most times allowed (`max`). */
export class CounterLimitReached extends Data.TaggedError("CounterLimitReached")<{ readonly max: number }> {
  readonly code = "COUNTER_LIMIT_REACHED" as const
}

/**
 * The buyer accepted the offer as it was at `expected` revision, but the seller revised it since: it is now at
 * `revision`, and nothing was accepted.
 */
export class OfferChanged extends Data.TaggedError("OfferChanged")<{
  readonly expected: number
  readonly revision: number
}> {
  readonly code = "OFFER_CHANGED" as const
}
