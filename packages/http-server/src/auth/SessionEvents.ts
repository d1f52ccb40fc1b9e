import { Context, Effect, Layer } from "effect"

/**
 * Tells whoever holds live connections of a session (the WebSocket hub) that it has ended.
 * The default does nothing; the realtime layer replaces it.
 */
export class SessionEvents extends Context.Tag("@talab/http-server/SessionEvents")<
  SessionEvents,
  { readonly revoked: (sessionId: string) => Effect.Effect<void> }
>() {
  static readonly Noop = Layer.succeed(SessionEvents, { revoked: () => Effect.void })
}
