import { Forbidden, type User } from "@talab/core"
import * as Effect from "effect/Effect"

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
