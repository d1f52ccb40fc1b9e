import * as Effect from "effect/Effect"
import { isParty } from "../chat/Conversation.js"
import type { Deal } from "../deals/Deal.js"
import { ValidationFailed } from "../shared/Errors.js"

/** A report about a deal is about one of its parties. */
export const requireReportedInDeal = (
  deal: Pick<Deal, "buyerId" | "sellerId">,
  reportedUserId: string
): Effect.Effect<void, ValidationFailed> =>
  isParty(deal, reportedUserId)
    ? Effect.void
    : Effect.fail(ValidationFailed.field("reported_user_id", "reported_user_not_in_deal"))
