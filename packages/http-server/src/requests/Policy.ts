import { type BuyRequest, Forbidden, NotFound, type User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** A request that must exist (404 otherwise). */
export const found = <A>(request: Option.Option<A>): Effect.Effect<A, NotFound> =>
  Option.match(request, { onNone: () => Effect.fail(new NotFound({ resource: "request" })), onSome: Effect.succeed })

/** Only the buyer who posted a request may close it or accept an offer on it. */
export const requireOwner = (request: BuyRequest, user: User): Effect.Effect<void, Forbidden> =>
  request.buyerId === user.id ? Effect.void : Effect.fail(new Forbidden())
