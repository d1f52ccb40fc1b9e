import { Effect, Layer } from "effect"
import { SessionEvents } from "../auth/SessionEvents.js"
import { RealtimeHub, RealtimeHubLive } from "./Hub.js"

/** Logout (or any end of a session) closes that session's sockets, on every instance. */
const SessionEventsFromHub = Layer.effect(
  SessionEvents,
  Effect.map(RealtimeHub, (hub) => ({ revoked: hub.endSession }))
)

/** The realtime hub and the session events it listens to. */
export const RealtimeLive = SessionEventsFromHub.pipe(Layer.provideMerge(RealtimeHubLive))
