import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Forbidden, NotFound } from "./Errors.js"

/*
 * Who may do what: the marketplace's own rules, shared by every embedder of the use cases (REST handlers and
 * the WebSocket alike). Each feature's `Policy.ts` holds its rules as small effects that fail `Forbidden` (or
 * the error the rule owes), so a caller combines them with `Effect.zipRight` or `Effect.all`. `user` is the
 * caller as the embedder resolved them (`isAdmin` included).
 */

/** The policy that lets the caller through when `allowed` holds, and answers `Forbidden` otherwise. */
export const allowIf = (allowed: boolean): Effect.Effect<void, Forbidden> =>
  allowed ? Effect.void : Effect.fail(new Forbidden())

/** The aggregate a lookup found, or `NotFound` naming `resource` (for logs). */
export const requireFound =
  (resource: string) =>
  <A>(option: Option.Option<A>): Effect.Effect<A, NotFound> =>
    Option.match(option, { onNone: () => Effect.fail(new NotFound({ resource })), onSome: Effect.succeed })
