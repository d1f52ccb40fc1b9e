import { Effect } from "effect"

/** A user's sockets subscribed to one conversation, as one unit of delivery and presence. */
export interface Audience {
  readonly conversationId: string
  readonly userId: string
}

/** What other server instances tell this one. */
export interface FanoutInbound {
  /** A frame for an audience, published by another instance. */
  readonly deliver: (audience: Audience, frame: string) => void
  /** A session ended on another instance. */
  readonly sessionEnded: (sessionId: string) => void
}

/**
 * Carries deliveries, presence and session ends between server instances. The hub delivers to its own
 * sockets itself; a fan-out only reaches the others.
 */
export interface Fanout {
  /** From now on this instance receives the audience's deliveries (and counts as having it present). */
  readonly watch: (audience: Audience) => Effect.Effect<void, Error>
  readonly unwatch: (audience: Audience) => Effect.Effect<void>
  /** Whether another instance has a socket of the audience. */
  readonly presentElsewhere: (audience: Audience) => Effect.Effect<boolean>
  readonly deliver: (audience: Audience, frame: string) => Effect.Effect<void>
  readonly endSession: (sessionId: string) => Effect.Effect<void>
}

/** One instance only (no REDIS_URL): there is nobody else to tell. */
export const localOnlyFanout: Fanout = {
  watch: () => Effect.void,
  unwatch: () => Effect.void,
  presentElsewhere: () => Effect.succeed(false),
  deliver: () => Effect.void,
  endSession: () => Effect.void
}
