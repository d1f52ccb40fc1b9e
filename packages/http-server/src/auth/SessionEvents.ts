import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * Tells every instance what a signed-in caller's check depends on changed: a session ended (its sockets
 * close, its cached row goes) or a user's row changed (their cached sessions are read again). Said after the
 * change committed. The default does nothing; the realtime layer replaces it.
 */
export class SessionEvents extends Context.Tag("@talab/http-server/SessionEvents")<
  SessionEvents,
  {
    readonly revoked: (sessionId: string) => Effect.Effect<void>
    readonly userChanged: (userId: string) => Effect.Effect<void>
  }
>() {
  static readonly Noop = Layer.succeed(SessionEvents, { revoked: () => Effect.void, userChanged: () => Effect.void })
}
