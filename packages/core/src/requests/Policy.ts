import type * as Effect from "effect/Effect"
import type { Forbidden } from "../shared/Errors.js"
import { allowIf } from "../shared/Policy.js"
import type { User } from "../users/User.js"
import type { BuyRequest } from "./BuyRequest.js"

/** Only the buyer who posted a request may close or extend it, or accept an offer on it. */
export const requireRequestOwner = (request: Pick<BuyRequest, "buyerId">, user: User): Effect.Effect<void, Forbidden> =>
  allowIf(request.buyerId === user.id)
