import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionEvents } from "../auth/SessionEvents.js"
import { ReadsChanged } from "../readcache/ReadsChanged.js"
import { RealtimeHub, RealtimeHubLive } from "./Hub.js"

/** Logout (or any end of a session) closes that session's sockets, and both it and a user's change reach every instance's session cache. */
const SessionEventsFromHub = Layer.effect(
  SessionEvents,
  Effect.map(RealtimeHub, (hub) => ({ revoked: hub.endSession, userChanged: hub.userChanged }))
)

/** A write's drop of kept reads reaches every instance's read cache through the hub's fan-out. */
const ReadsChangedFromHub = Layer.effect(
  ReadsChanged,
  Effect.map(RealtimeHub, (hub) => ({ changed: hub.readsChanged }))
)

/** The realtime hub and the session events and read cache drops it carries. */
export const RealtimeLive = Layer.merge(SessionEventsFromHub, ReadsChangedFromHub).pipe(
  Layer.provideMerge(RealtimeHubLive)
)
