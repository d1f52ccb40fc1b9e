import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SellerNotApproved } from "../sellers/Errors.js"
import type { SellerProfile } from "../sellers/SellerProfile.js"
import { Forbidden, NotFound } from "../shared/Errors.js"
import { type Conversation, isParty, type LockedConversation } from "./Conversation.js"

/** Only the buyer and the seller of a conversation may read or write it; an unknown one is not found. */
export const asConversationParty = <C extends Conversation>(
  conversation: Option.Option<C>,
  userId: string
): Effect.Effect<C, NotFound | Forbidden> =>
  Option.match(conversation, {
    onNone: () => Effect.fail(new NotFound({ resource: "conversation" })),
    onSome: (party) => (isParty(party, userId) ? Effect.succeed(party) : Effect.fail(new Forbidden()))
  })

/**
 * A seller whose profile is not approved (suspended, rejected) writes only where a deal was made: in the
 * conversation of an accepted offer, which stays open for the deal's sake. Elsewhere they would keep courting
 * buyers the marketplace has stopped showing them to. The buyer always writes.
 */
export const requireMayWrite = (
  conversation: LockedConversation,
  senderId: string,
  sellerProfile: Option.Option<Pick<SellerProfile, "status">>
): Effect.Effect<void, SellerNotApproved> =>
  senderId !== conversation.sellerId ||
  conversation.offerStatus === "accepted" ||
  Option.exists(sellerProfile, (profile) => profile.status === "approved")
    ? Effect.void
    : Effect.fail(new SellerNotApproved())
