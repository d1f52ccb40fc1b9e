import type * as Effect from "effect/Effect"
import { isParty } from "../chat/Conversation.js"
import type { Forbidden } from "../shared/Errors.js"
import { allowIf } from "../shared/Policy.js"
import type { User } from "../users/User.js"
import type { Deal } from "./Deal.js"

/** A deal is seen by its two parties only. */
export const requireDealParty = (
  deal: Pick<Deal, "buyerId" | "sellerId">,
  user: User
): Effect.Effect<void, Forbidden> => allowIf(isParty(deal, user.id))

/** Only the buyer completes, cancels or rates a deal. */
export const requireDealBuyer = (deal: Pick<Deal, "buyerId">, user: User): Effect.Effect<void, Forbidden> =>
  allowIf(deal.buyerId === user.id)
