import { SellerNotApproved, type SellerProfile } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** Only an approved seller keeps alert rules; no profile, a pending, rejected or suspended one: 403 SELLER_NOT_APPROVED. */
export const requireApprovedSeller = (
  profile: Option.Option<SellerProfile>
): Effect.Effect<SellerProfile, SellerNotApproved> =>
  Option.isSome(profile) && profile.value.status === "approved"
    ? Effect.succeed(profile.value)
    : Effect.fail(new SellerNotApproved())
