import { type Deal, Forbidden, NotFound, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** A deal that must exist (404 otherwise). */
export const foundDeal = <A>(deal: Option.Option<A>): Effect.Effect<A, NotFound> =>
  Option.match(deal, { onNone: () => Effect.fail(new NotFound({ resource: "deal" })), onSome: Effect.succeed })

/** A deal is seen by its two parties only. */
export const requireParty = (deal: Pick<Deal, "buyerId" | "sellerId">, user: User): Effect.Effect<void, Forbidden> =>
  deal.buyerId === user.id || deal.sellerId === user.id ? Effect.void : Effect.fail(new Forbidden())

/** Only the buyer completes, cancels or rates a deal. */
export const requireBuyer = (deal: Pick<Deal, "buyerId">, user: User): Effect.Effect<void, Forbidden> =>
  deal.buyerId === user.id ? Effect.void : Effect.fail(new Forbidden())
