import * as Effect from "effect/Effect"
import { Forbidden } from "../shared/Errors.js"
import { allowIf } from "../shared/Policy.js"
import type { User } from "../users/User.js"
import type { Offer } from "./Offer.js"

/** Only the seller who made an offer may withdraw it. */
export const requireOfferOwner = (offer: Pick<Offer, "sellerId">, user: User): Effect.Effect<void, Forbidden> =>
  allowIf(offer.sellerId === user.id)

/**
 * Who sees the offers of a request: its owner sees every offer that is not withdrawn, a seller who
 * made offers on it only theirs (withdrawn ones included), anybody else nothing.
 */
export type OffersAudience = { readonly _tag: "Owner" } | { readonly _tag: "Seller"; readonly sellerId: string }

/** The audience `user` belongs to for the offers of `request`. */
export const audienceOf = (request: { readonly buyerId: string }, user: User): OffersAudience =>
  request.buyerId === user.id ? { _tag: "Owner" } : { _tag: "Seller", sellerId: user.id }

/** A seller with no offer on the request sees an empty list: that is a caller who may not look. */
export const requireOffersVisible = <A>(
  audience: OffersAudience,
  offers: ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, Forbidden> =>
  audience._tag === "Seller" && offers.length === 0 ? Effect.fail(new Forbidden()) : Effect.succeed(offers)

/** Only the request's owner and the offer's seller may read an offer's history. */
export const requireOfferParty = (
  offer: Pick<Offer, "sellerId">,
  request: { readonly buyerId: string },
  user: User
): Effect.Effect<void, Forbidden> => allowIf(offer.sellerId === user.id || request.buyerId === user.id)
