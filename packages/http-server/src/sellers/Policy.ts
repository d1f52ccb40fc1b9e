import { NotFound, type SellerProfile } from "@talab/core"
import * as Effect from "effect/Effect"

/** Only approved profiles are public; any other state is as good as unknown to the public. */
export const publiclyVisible = (profile: SellerProfile): Effect.Effect<SellerProfile, NotFound> =>
  profile.status === "approved" ? Effect.succeed(profile) : Effect.fail(new NotFound({ resource: "seller_profile" }))
