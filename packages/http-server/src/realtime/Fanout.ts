import * as Effect from "effect/Effect"

/** A user's sockets subscribed to one conversation, as one unit of delivery and presence. */
export interface Audience {
  readonly conversationId: string
  readonly userId: string
}

/** An authenticated socket, as counted against the caps on sockets per session and per user. */
export interface SocketHolder {
  /** The socket's id on its own instance. */
  readonly connectionId: number
  readonly userId: string
  readonly sessionId: string
}

/** How many authenticated sockets a session and a user may hold. */
interface SocketCaps {
  readonly perSession: number
  readonly perUser: number
}

/** What other server instances tell this one. */
export interface FanoutInbound {
  /** A frame for an audience, published by another instance. */
  readonly deliver: (audience: Audience, frame: string) => void
  /** A user event (JSON of a `UserEvent`) for the sockets of these users, published by another instance. */
  readonly deliverToUsers: (userIds: ReadonlyArray<string>, event: string) => void
  /** A session ended on another instance. */
  readonly sessionEnded: (sessionId: string) => void
  /** A user's row changed on another instance (or by `talab admin`). */
  readonly userChanged: (userId: string) => void
  /** Writes on another instance changed what the read cache's answers with these tags show. */
  readonly readsChanged: (tags: ReadonlyArray<string>) => void
  /** Whether what other instances publish reaches this one (false while the connection is away). */
  readonly hearing: (hearing: boolean) => void
  /** A socket of this instance is beyond its session's or user's cap (counted over every instance): close it. */
  readonly evict: (connectionId: number) => void
}

/**
 * Carries deliveries, presence and session ends between server instances. The hub delivers to its own
 * sockets itself; a fan-out only reaches the others.
 */
export interface Fanout {
  /** Whether there are other instances to reach at all (false with one instance only). */
  readonly reachesOthers: boolean
  /** From now on this instance receives the audience's deliveries (and counts as having it present). */
  readonly watch: (audience: Audience) => Effect.Effect<void, Error>
  readonly unwatch: (audience: Audience) => Effect.Effect<void>
  /** Whether another instance has a socket of the audience. */
  readonly presentElsewhere: (audience: Audience) => Effect.Effect<boolean>
  readonly deliver: (audience: Audience, frame: string) => Effect.Effect<void>
  /** Tells every other instance of a user event (JSON of a `UserEvent`) for the sockets of these users. */
  readonly deliverToUsers: (userIds: ReadonlyArray<string>, event: string) => Effect.Effect<void>
  readonly endSession: (sessionId: string) => Effect.Effect<void>
  readonly userChanged: (userId: string) => Effect.Effect<void>
  /** Has every other instance drop the read cache's answers with these tags; done once each confirmed. */
  readonly readsChanged: (tags: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * Counts a newly authenticated socket over every instance and has the sockets beyond the caps evicted
   * (through `FanoutInbound.evict` on their instance). False when it could not (one instance only, or the
   * store is away): the hub then enforces the caps over its own sockets.
   */
  readonly admit: (holder: SocketHolder, caps: SocketCaps) => Effect.Effect<boolean>
  /** Stops counting a closed socket. */
  readonly release: (holder: SocketHolder) => Effect.Effect<void>
}

/** One instance only (no REDIS_URL): there is nobody else to tell. */
export const localOnlyFanout: Fanout = {
  reachesOthers: false,
  watch: () => Effect.void,
  unwatch: () => Effect.void,
  presentElsewhere: () => Effect.succeed(false),
  deliver: () => Effect.void,
  deliverToUsers: () => Effect.void,
  endSession: () => Effect.void,
  userChanged: () => Effect.void,
  readsChanged: () => Effect.void,
  admit: () => Effect.succeed(false),
  release: () => Effect.void
}
