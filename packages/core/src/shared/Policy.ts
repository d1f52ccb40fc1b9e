import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { BuyRequest } from "../BuyRequest.js"
import { type Conversation, isParty } from "../Conversation.js"
import type { Deal } from "../Deal.js"
import { Forbidden, NotFound, SellerNotApproved, ValidationFailed } from "../Errors.js"
import type { Offer } from "../Offer.js"
import type { SellerProfile } from "../SellerProfile.js"
import type { User } from "../User.js"

/*
 * Who may do what: the marketplace's own rules, shared by every embedder of the use cases. `user` is the
 * caller as the embedder resolved them (`isAdmin` included).
 */

/** The aggregate a lookup found, or `NotFound` naming `resource` (for logs). */
export const requireFound =
  (resource: string) =>
  <A>(option: Option.Option<A>): Effect.Effect<A, NotFound> =>
    Option.match(option, { onNone: () => Effect.fail(new NotFound({ resource })), onSome: Effect.succeed })

/** Only the buyer who posted a request may close or extend it, or accept an offer on it. */
export const requireRequestOwner = (
  request: Pick<BuyRequest, "buyerId">,
  user: User
): Effect.Effect<void, Forbidden> => (request.buyerId === user.id ? Effect.void : Effect.fail(new Forbidden()))

/** Only the seller who made an offer may withdraw it. */
export const requireOfferOwner = (offer: Pick<Offer, "sellerId">, user: User): Effect.Effect<void, Forbidden> =>
  offer.sellerId === user.id ? Effect.void : Effect.fail(new Forbidden())

/** A deal is seen by its two parties only. */
export const requireDealParty = (
  deal: Pick<Deal, "buyerId" | "sellerId">,
  user: User
): Effect.Effect<void, Forbidden> => (isParty(deal, user.id) ? Effect.void : Effect.fail(new Forbidden()))

/** Only the buyer completes, cancels or rates a deal. */
export const requireDealBuyer = (deal: Pick<Deal, "buyerId">, user: User): Effect.Effect<void, Forbidden> =>
  deal.buyerId === user.id ? Effect.void : Effect.fail(new Forbidden())

/** A report about a deal is about one of its parties. */
export const requireReportedInDeal = (
  deal: Pick<Deal, "buyerId" | "sellerId">,
  reportedUserId: string
): Effect.Effect<void, ValidationFailed> =>
  isParty(deal, reportedUserId)
    ? Effect.void
    : Effect.fail(ValidationFailed.field("reported_user_id", "reported_user_not_in_deal"))

/** Reviewing seller profiles and resolving reports is for administrators only. */
export const requireAdmin = (user: User): Effect.Effect<void, Forbidden> =>
  user.isAdmin ? Effect.void : Effect.fail(new Forbidden())

/** Only the buyer and the seller of a conversation may read or write it; an unknown one is not found. */
export const asConversationParty = <C extends Conversation>(
  conversation: Option.Option<C>,
  userId: string
): Effect.Effect<C, NotFound | Forbidden> =>
  Option.match(conversation, {
    onNone: () => Effect.fail(new NotFound({ resource: "conversation" })),
    onSome: (party) => (isParty(party, userId) ? Effect.succeed(party) : Effect.fail(new Forbidden()))
  })

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
