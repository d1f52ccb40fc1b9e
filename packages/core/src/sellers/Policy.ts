import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../shared/Errors.js"
import { SellerNotApproved } from "./Errors.js"
import type { SellerProfile } from "./SellerProfile.js"

/** Only approved profiles are public; any other state is as good as unknown to the public. */
export const publiclyVisible = (profile: SellerProfile): Effect.Effect<SellerProfile, NotFound> =>
  profile.status === "approved" ? Effect.succeed(profile) : Effect.fail(new NotFound({ resource: "seller_profile" }))

/** The user's seller profile, which must be approved: none, pending, rejected or suspended is `SellerNotApproved`. */
export const requireApprovedSeller = (
  profile: Option.Option<SellerProfile>
): Effect.Effect<SellerProfile, SellerNotApproved> =>
  Option.isSome(profile) && profile.value.status === "approved"
    ? Effect.succeed(profile.value)
    : Effect.fail(new SellerNotApproved())
