import {
  CloseCode,
  MAX_SOCKETS_PER_SESSION,
  MAX_SOCKETS_PER_USER,
  type SentMessage,
  UserEvent,
  userChannel
} from "@talab/contract"
import type { Conversation } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { SessionCache } from "../auth/SessionCache.js"
import { type Around, shownTo } from "../chat/Views.js"
import { AppConfig } from "../config/AppConfig.js"
import { ReadCache, userTag } from "../readcache/ReadCache.js"
import { ServerLifecycle } from "../server/Lifecycle.js"
import { recordMessagesDelivered, recordOpenSockets } from "../telemetry/Metrics.js"
import type { Connection } from "./Connection.js"
import { type Audience, type Fanout, type FanoutInbound, localOnlyFanout, type SocketHolder } from "./Fanout.js"
import { encodeServerFrame, seqOfMessageFrame } from "./Frames.js"
import { makeRedisFanout } from "./RedisFanout.js"

// Between instances a user event travels as the JSON a socket receives; one that does not decode is dropped.
const encodeUserEvent = Schema.encodeSync(Schema.parseJson(UserEvent))
const decodeUserEvent = Schema.decodeOption(Schema.parseJson(UserEvent))

/** A socket must authenticate this soon after opening. */
const AUTH_TIMEOUT_MS = 10_000
/** Every socket is pinged this often; one that has not answered the previous ping is cut off. */
const HEARTBEAT_INTERVAL_MS = 30_000
/** How often deadlines (auth, session end, heartbeat) are checked; they are read from the Clock. */
const SWEEP_INTERVAL = Duration.millis(500)

export interface RealtimeHubService {
  /** Whether a socket of the user (on any instance) is subscribed to the conversation. */
  readonly isOnline: (conversationId: string, userId: string) => Effect.Effect<boolean>
  /**
   * Delivers a stored message to every socket subscribed to its conversation: both parties, every device,
   * each party reading it as `shownTo` renders it (contact details masked for the recipient unless
   * `contactsShown`, those spread over the sender's messages `around` it included).
   */
  readonly publish: (
    conversation: Pick<Conversation, "id" | "buyerId" | "sellerId">,
    message: SentMessage,
    contactsShown: boolean,
    around: Around
  ) => Effect.Effect<void>
  /** Sends an event to every authenticated socket of each user, on every instance, on their user channel. */
  readonly publishToUsers: (userIds: ReadonlyArray<string>, event: UserEvent) => Effect.Effect<void>
  readonly attach: (connection: Connection) => Effect.Effect<void>
  /** Forgets a closed socket and everything it was subscribed to. */
  readonly detach: (connection: Connection) => Effect.Effect<void>
  /** Files a socket under its session before the session is checked, so a logout racing the check still finds it. */
  readonly bindSession: (connection: Connection, sessionId: string) => Effect.Effect<void>
  /**
   * Counts a socket that has just authenticated against its session's and its user's caps, over every
   * instance when the fan-out can (Redis), else on this one; past either, the oldest authenticated socket of
   * that session or user is closed with 4008.
   */
  readonly admit: (connection: Connection) => Effect.Effect<void>
  /** Subscribes an authenticated socket; done once deliveries from every instance will reach it. */
  readonly subscribe: (connection: Connection, conversationId: string) => Effect.Effect<void, Error>
  readonly unsubscribe: (connection: Connection, conversationId: string) => Effect.Effect<void>
  /** Closes the session's sockets with 4401 and forgets the session's cached row, on every instance. */
  readonly endSession: (sessionId: string) => Effect.Effect<void>
  /** Has every instance read the user's row again (their session cache forgets it, and the reads showing it). */
  readonly userChanged: (userId: string) => Effect.Effect<void>
  /** Has every instance drop the read cache's answers with these tags; done once each has. */
  readonly readsChanged: (tags: ReadonlyArray<string>) => Effect.Effect<void>
}

/** The sockets of this instance, who they are and what they are subscribed to; the fan-out reaches the rest. */
export class RealtimeHub extends Context.Tag("Realtime/Hub")<RealtimeHub, RealtimeHubService>() {}

interface AudienceEntry {
  readonly connections: Set<Connection>
  /** Done when the fan-out watches the audience, so remote deliveries arrive. */
  readonly watching: Deferred.Deferred<void, Error>
}

const audienceKey = ({ conversationId, userId }: Audience) => `${conversationId}:${userId}`

const holderOf = (connection: Connection): SocketHolder | undefined =>
  connection.identity === undefined
    ? undefined
    : { connectionId: connection.id, userId: connection.identity.userId, sessionId: connection.identity.sessionId }

const caps = { perSession: MAX_SOCKETS_PER_SESSION, perUser: MAX_SOCKETS_PER_USER }
const evictTooMany = (connection: Connection) => connection.close(CloseCode.tooManySockets, "too many sockets")

const makeHub = <E>(makeFanout: (inbound: FanoutInbound) => Effect.Effect<Fanout, E, Scope.Scope>) =>
  Effect.gen(function* () {
    const sessionCache = yield* SessionCache
    const readCache = yield* ReadCache
    const userChangedLocally = (userId: string) => {
      sessionCache.forgetUser(userId)
      readCache.drop([userTag(userId)])
    }
    const connections = new Set<Connection>()
    const audiences = new Map<string, AudienceEntry>()
    const sessions = new Map<string, Set<Connection>>()
    // Sets keep insertion order, so the first authenticated, still open socket of one is the oldest.
    const users = new Map<string, Set<Connection>>()

    const forget = (index: Map<string, Set<Connection>>, key: string, connection: Connection) => {
      const set = index.get(key)
      if (set?.delete(connection) && set.size === 0) index.delete(key)
    }
    const closeOldestBeyond = (set: Set<Connection> | undefined, max: number) => {
      const open = [...(set ?? [])].filter((connection) => connection.identity !== undefined && connection.isOpen)
      for (const oldest of open.slice(0, Math.max(0, open.length - max))) evictTooMany(oldest)
    }

    /** Whether a socket of this instance is subscribed for the audience. */
    const listensHere = (audience: Audience) => (audiences.get(audienceKey(audience))?.connections.size ?? 0) > 0
    const deliverLocally = (audience: Audience, frame: string) => {
      const entry = audiences.get(audienceKey(audience))
      if (entry === undefined) return
      let seq: number | undefined
      const seqOfFrame = () => (seq ??= seqOfMessageFrame(frame))
      for (const connection of entry.connections) connection.deliverMessage(audience.conversationId, seqOfFrame, frame)
      recordMessagesDelivered(entry.connections.size)
    }
    const deliverToUsersLocally = (userIds: ReadonlyArray<string>, event: UserEvent) => {
      for (const userId of userIds) {
        const sockets = users.get(userId)
        if (sockets === undefined) continue
        const frame = encodeServerFrame({ type: "event", channel: userChannel(userId), ...event })
        for (const connection of sockets) if (connection.isOpen) connection.sendText(frame)
      }
    }
    const closeSessionLocally = (sessionId: string) => {
      sessionCache.forgetSession(sessionId)
      for (const connection of sessions.get(sessionId) ?? []) connection.reject()
    }

    const evictLocally = (connectionId: number) => {
      for (const connection of connections) if (connection.id === connectionId) evictTooMany(connection)
    }

    const fanout = yield* makeFanout({
      deliver: deliverLocally,
      deliverToUsers: (userIds, event) => {
        const decoded = decodeUserEvent(event)
        if (Option.isSome(decoded)) deliverToUsersLocally(userIds, decoded.value)
      },
      sessionEnded: closeSessionLocally,
      userChanged: userChangedLocally,
      readsChanged: readCache.drop,
      hearing: (hearing) => {
        sessionCache.trust(hearing)
        readCache.trust(hearing)
      },
      evict: evictLocally
    })

    const leave = (connection: Connection, conversationId: string) => {
      connection.forgetCatchUp(conversationId)
      if (!connection.subscriptions.delete(conversationId) || connection.identity === undefined) return Effect.void
      const audience = { conversationId, userId: connection.identity.userId }
      const key = audienceKey(audience)
      const entry = audiences.get(key)
      if (entry === undefined) return Effect.void
      entry.connections.delete(connection)
      if (entry.connections.size > 0) return Effect.void
      audiences.delete(key)
      return fanout.unwatch(audience)
    }

    const subscribe: RealtimeHubService["subscribe"] = (connection, conversationId) =>
      Effect.gen(function* () {
        const identity = connection.identity
        if (identity === undefined || connection.subscriptions.has(conversationId)) return
        const audience = { conversationId, userId: identity.userId }
        const key = audienceKey(audience)
        let entry = audiences.get(key)
        const first = entry === undefined
        if (entry === undefined) {
          entry = { connections: new Set(), watching: yield* Deferred.make<void, Error>() }
          audiences.set(key, entry)
        }
        entry.connections.add(connection)
        connection.subscriptions.add(conversationId)
        if (first) yield* Deferred.complete(entry.watching, fanout.watch(audience))
        yield* Deferred.await(entry.watching).pipe(
          Effect.tapError(() =>
            Effect.sync(() => {
              // Nobody is watching this audience: drop it, so the next subscribe tries again.
              for (const subscribed of entry.connections) subscribed.subscriptions.delete(conversationId)
              if (audiences.get(key) === entry) audiences.delete(key)
            })
          )
        )
      })

    const detach: RealtimeHubService["detach"] = (connection) =>
      Effect.gen(function* () {
        connections.delete(connection)
        recordOpenSockets(connections.size)
        for (const conversationId of [...connection.subscriptions]) yield* leave(connection, conversationId)
        for (const [sessionId, bound] of sessions) {
          if (bound.delete(connection) && bound.size === 0) sessions.delete(sessionId)
        }
        const holder = holderOf(connection)
        if (holder !== undefined) {
          forget(users, holder.userId, connection)
          yield* fanout.release(holder)
        }
      })

    const sweep = (lastHeartbeatAt: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const heartbeat = now - lastHeartbeatAt >= HEARTBEAT_INTERVAL_MS
        for (const connection of connections) {
          const { identity } = connection
          if (
            identity === undefined ? now - connection.openedAt >= AUTH_TIMEOUT_MS : identity.sessionExpiresAt <= now
          ) {
            connection.reject()
          } else if (heartbeat) connection.heartbeat()
        }
        return heartbeat ? now : lastHeartbeatAt
      })
    const startedAt = yield* Clock.currentTimeMillis
    // A failing round is logged and the next one runs: without the sweep no deadline would be kept.
    const sweepSafely = (last: number) =>
      sweep(last).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.as(
            Effect.logError("Realtime: deadline sweep failed").pipe(Effect.annotateLogs({ defect: String(defect) })),
            last
          )
        )
      )
    yield* Effect.iterate(startedAt, {
      while: () => true,
      body: (last) => Effect.delay(sweepSafely(last), SWEEP_INTERVAL)
    }).pipe(Effect.forkScoped)

    // Shutdown (SIGTERM): every socket is told the server is going away, as soon as the server starts draining.
    const closeAll = () => {
      for (const connection of connections) connection.close(CloseCode.goingAway, "server shutting down")
    }
    const lifecycle = yield* ServerLifecycle
    lifecycle.onDrain(closeAll)
    yield* Effect.addFinalizer(() => Effect.sync(closeAll))

    return RealtimeHub.of({
      isOnline: (conversationId, userId) => {
        const audience = { conversationId, userId }
        return listensHere(audience) ? Effect.succeed(true) : fanout.presentElsewhere(audience)
      },
      publish: (conversation, message, contactsShown, around) =>
        Effect.gen(function* () {
          for (const userId of [conversation.buyerId, conversation.sellerId]) {
            const audience = { conversationId: conversation.id, userId }
            // Masked and encoded only for a party someone may be listening for, here or on another instance.
            if (!fanout.reachesOthers && !listensHere(audience)) continue
            const frame = encodeServerFrame({ type: "message", data: shownTo(message, userId, contactsShown, around) })
            deliverLocally(audience, frame)
            yield* fanout.deliver(audience, frame)
          }
        }),
      publishToUsers: (userIds, event) =>
        Effect.suspend(() => {
          deliverToUsersLocally(userIds, event)
          return fanout.reachesOthers ? fanout.deliverToUsers(userIds, encodeUserEvent(event)) : Effect.void
        }),
      attach: (connection) =>
        Effect.sync(() => {
          connections.add(connection)
          recordOpenSockets(connections.size)
        }),
      detach,
      bindSession: (connection, sessionId) =>
        Effect.sync(() => {
          const bound = sessions.get(sessionId) ?? new Set()
          bound.add(connection)
          sessions.set(sessionId, bound)
        }),
      admit: (connection) =>
        Effect.gen(function* () {
          const holder = holderOf(connection)
          if (holder === undefined) return
          const mine = users.get(holder.userId) ?? new Set()
          mine.add(connection)
          users.set(holder.userId, mine)
          if (yield* fanout.admit(holder, caps)) return
          closeOldestBeyond(sessions.get(holder.sessionId), MAX_SOCKETS_PER_SESSION)
          closeOldestBeyond(mine, MAX_SOCKETS_PER_USER)
        }),
      subscribe,
      unsubscribe: leave,
      endSession: (sessionId) =>
        Effect.zipRight(
          Effect.sync(() => closeSessionLocally(sessionId)),
          fanout.endSession(sessionId)
        ),
      userChanged: (userId) =>
        Effect.zipRight(
          Effect.sync(() => userChangedLocally(userId)),
          fanout.userChanged(userId)
        ),
      readsChanged: (tags) =>
        Effect.zipRight(
          Effect.sync(() => readCache.drop(tags)),
          fanout.readsChanged(tags)
        )
    })
  })

/** The hub, fanning out through Redis when REDIS_URL is set, else within this process only. */
export const RealtimeHubLive = Layer.scoped(
  RealtimeHub,
  Effect.flatMap(AppConfig, (config) => {
    const redisUrl = config.redisUrl
    return redisUrl === undefined
      ? makeHub(() => Effect.succeed(localOnlyFanout))
      : makeHub((inbound) => makeRedisFanout(redisUrl, `${config.redisPrefix}ws:`, inbound))
  })
)
