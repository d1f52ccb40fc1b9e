import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionEvents } from "../auth/SessionEvents.js"
import { RealtimeHub, RealtimeHubLive } from "./Hub.js"

/** Logout (or any end of a session) closes that session's sockets, and both it and a user's change reach every instance's session cache. */
const SessionEventsFromHub = Layer.effect(
  SessionEvents,
  Effect.map(RealtimeHub, (hub) => ({ revoked: hub.endSession, userChanged: hub.userChanged }))
)

/** The realtime hub and the session events it listens to. */
export const RealtimeLive = SessionEventsFromHub.pipe(Layer.provideMerge(RealtimeHubLive))
