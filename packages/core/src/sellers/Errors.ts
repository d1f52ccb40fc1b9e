import * as Data from "effect/Data"

/**
 * The caller has no approved seller profile (none, pending, rejected or suspended), so may not act as a seller, e.g.
 * make an offer.
 */
export class SellerNotApproved extends Data.TaggedError("SellerNotApproved")<{}> {
  readonly code = "SELLER_NOT_APPROVED" as const
}

/** The user already has a seller profile, in whatever state, so cannot apply again. */
export class SellerProfileExists extends Data.TaggedError("SellerProfileExists")<{}> {
  readonly code = "SELLER_PROFILE_EXISTS" as const
}

/** An administrator tried to approve or reject a seller profile that is not pending. */
export class SellerProfileNotPending extends Data.TaggedError("SellerProfileNotPending")<{}> {
  readonly code = "SELLER_PROFILE_NOT_PENDING" as const
}

/** An administrator tried to suspend a seller profile that is not approved. */
export class SellerProfileNotApproved extends Data.TaggedError("SellerProfileNotApproved")<{}> {
  readonly code = "SELLER_PROFILE_NOT_APPROVED" as const
}

/** An administrator tried to reinstate a seller profile that is not suspended. */
export class SellerProfileNotSuspended extends Data.TaggedError("SellerProfileNotSuspended")<{}> {
  readonly code = "SELLER_PROFILE_NOT_SUSPENDED" as const
}
