import { Forbidden, NotFound, type Offer, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** An offer that must exist (404 otherwise). */
export const foundOffer = (offer: Option.Option<Offer>): Effect.Effect<Offer, NotFound> =>
  Option.match(offer, { onNone: () => Effect.fail(new NotFound({ resource: "offer" })), onSome: Effect.succeed })

/** Only the seller who made an offer may withdraw it. */
export const requireOfferOwner = (offer: Offer, user: User): Effect.Effect<void, Forbidden> =>
  offer.sellerId === user.id ? Effect.void : Effect.fail(new Forbidden())

/**
 * Who sees the offers of a request: its owner sees every offer that is not withdrawn, a seller who
 * made offers on it only theirs (withdrawn ones included), anybody else nothing.
 */
export type OffersAudience = { readonly _tag: "Owner" } | { readonly _tag: "Seller"; readonly sellerId: string }

export const audienceOf = (request: { readonly buyerId: string }, user: User): OffersAudience =>
  request.buyerId === user.id ? { _tag: "Owner" } : { _tag: "Seller", sellerId: user.id }

/** A seller with no offer on the request sees an empty list: that is a caller who may not look. */
export const requireOffersVisible = <A>(
  audience: OffersAudience,
  offers: ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, Forbidden> =>
  audience._tag === "Seller" && offers.length === 0 ? Effect.fail(new Forbidden()) : Effect.succeed(offers)
