import { randomUUID } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import { answeredWithin, limitCommands } from "../adapters/RedisConnect.js"
import { isReadTag } from "../readcache/ReadCache.js"
import { watchReadiness } from "../telemetry/RedisReadiness.js"
import type { Audience, Fanout, FanoutInbound, SocketHolder } from "./Fanout.js"

/** The first connection to Redis could not be made when the server started. */
export class RealtimeRedisConnectFailed extends Data.TaggedError("RealtimeRedisConnectFailed")<{
  readonly reason: string
}> {
  override get message() {
    return `Could not connect to Redis (REDIS_URL) for WebSocket fan-out: ${this.reason}`
  }
}

const COMMAND_TIMEOUT_MS = 2_000

/*
 * One channel per audience (conversation, user). An instance subscribes to it while one of its sockets is
 * that user's subscription to that conversation, so:
 * - delivery publishes to the channels of both parties and reaches exactly the instances that have them;
 * - presence is PUBSUB NUMSUB on the channel, kept by Redis itself: when an instance dies, its connection
 *   drops and its subscriptions go with it, with no TTL to wait out or refresh.
 * Payloads are `<origin instance id>\n<frame>`, so an instance skips what it published itself (it has
 * already delivered that to its own sockets).
 */
/** The names of one deployment's channels and keys, all under `prefix` (REDIS_PREFIX then `ws:`). */
const namesOf = (prefix: string) => {
  const SESSIONS_CHANNEL = `${prefix}sessions`
  /** A user's row changed (profile, language, avatar, admin grant): each instance reads their sessions again. */
  const USER_CHANGES_CHANNEL = `${prefix}user-changes`
  /** User events, to every instance: `{"user_ids": [...], "event": {...}}`; each delivers to its own sockets. */
  const USERS_CHANNEL = `${prefix}users`
  const EVICT_CHANNEL = `${prefix}evict`
  /** Writes changed what kept reads show: each instance drops the answers of these tags (space-separated). */
  const READS_CHANNEL = `${prefix}reads`
  const audiencePrefix = `${prefix}c:`
  return {
    SESSIONS_CHANNEL,
    USER_CHANGES_CHANNEL,
    USERS_CHANNEL,
    EVICT_CHANNEL,
    READS_CHANNEL,
    /** Each publisher's own channel for the confirmations of its session ends and user changes. */
    REPLY_PREFIX: `${prefix}confirm:`,
    /** What every instance listens on from its start, and again after each reconnect. */
    FIXED_CHANNELS: [SESSIONS_CHANNEL, USER_CHANGES_CHANNEL, EVICT_CHANNEL, USERS_CHANNEL, READS_CHANNEL],
    SESSION_SOCKETS: `${prefix}sockets:s:`,
    USER_SOCKETS: `${prefix}sockets:u:`,
    SOCKET_SEQUENCE: `${prefix}sockets:seq`,
    audienceChannel: ({ conversationId, userId }: Audience) => `${audiencePrefix}${conversationId}:u:${userId}`,
    /** The conversation and user of an audience channel's name, if it is one. */
    audienceOf: (channel: string) =>
      channel.startsWith(audiencePrefix) ? AUDIENCE.exec(channel.slice(audiencePrefix.length)) : null
  }
}
const AUDIENCE = /^([^:]+):u:([^:]+)$/
/** Users named per published user event, so one publish stays small whatever the number of recipients. */
const USERS_PER_PUBLISH = 1_000

/*
 * Sockets per session and per user, over every instance: a sorted set per session and per user of
 * `<instance>|<socket id>|<session id>`, scored by a Redis counter so "oldest" needs no agreement between
 * clocks. The script adds the new socket, takes the oldest members beyond each cap out of both sets and
 * answers them; each instance closes its own (the others hear it on the `evict` channel). A set expires a
 * session's lifetime after its last admission, which clears what an instance that died left behind; the
 * counter expires with the last set it scored, so a deployment that stops leaves no key behind for good.
 */
const SOCKET_SETS_TTL_SECONDS = 31 * 24 * 60 * 60
const ADMIT_SCRIPT = `
local score = redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('ZADD', KEYS[2], score, ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
local evicted = {}
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
    table.insert(evicted, member)
  end
end
over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('ZREM', KEYS[2], member)
    redis.call('ZREM', ARGV[5] .. string.match(member, '^[^|]*|[^|]*|(.*)$'), member)
    table.insert(evicted, member)
  end
end
return evicted
`
/*
 * Session ends and user changes are confirmed: the publisher names a reply channel of its own and a token, each
 * instance applies the change (its session cache forgets, its sockets close) and then publishes the token back.
 * PUBLISH answers how many subscribers got the message, so the publisher knows how many confirmations to wait
 * for, and answers its caller (a logout's response) only once every instance has applied the change: the next
 * request, wherever it lands, sees it. An instance that does not confirm within the timeout (dead, or its
 * command connection away) is logged and no longer waited for.
 */
const CONFIRM_TIMEOUT_MS = 1_000

/** Announces changes on `publisher` and counts the confirmations that reach `subscriber` on `replyChannel`. */
const makeAnnouncer = (publisher: Redis, subscriber: Redis, origin: string, replyChannel: string) => {
  const waiting = new Map<string, () => void>()
  subscriber.on("message", (channel: string, token: string) => {
    if (channel === replyChannel) waiting.get(token)?.()
  })
  /**
   * Publishes `id` on `channel` and waits for the confirmation of every receiver (the announcing instance
   * confirms its own, having applied the change already, so its subscriber being away cannot skew the count);
   * answers how many receivers did not confirm in time.
   */
  return (channel: string, id: string) =>
    Effect.async<number, Error>((resume) => {
      const token = randomUUID()
      let confirmed = 0
      let expected: number | undefined
      const settle = (missing: number) => {
        clearTimeout(timer)
        waiting.delete(token)
        resume(Effect.succeed(missing))
      }
      const check = () => {
        if (expected !== undefined && confirmed >= expected) settle(0)
      }
      waiting.set(token, () => {
        confirmed++
        check()
      })
      const timer = setTimeout(() => settle(Math.max(0, (expected ?? 0) - confirmed)), CONFIRM_TIMEOUT_MS)
      publisher.publish(channel, `${origin}\n${id}\n${replyChannel} ${token}`).then(
        (receivers) => {
          expected = receivers
          check()
        },
        (error: unknown) => {
          clearTimeout(timer)
          waiting.delete(token)
          resume(Effect.fail(error instanceof Error ? error : new Error(String(error))))
        }
      )
    })
}

/*
 * What other instances (or a `talab` command) publish is decoded here, as a request is at the HTTP edge: the
 * ids it names are UUIDs, or the message names no session or user and changes nothing (it is still confirmed,
 * so its publisher does not wait out the timeout).
 */
type Names = ReturnType<typeof namesOf>

const isId = Schema.is(Schema.UUID)
const decodeUserEvent = Schema.decodeUnknownEither(
  Schema.parseJson(Schema.Struct({ user_ids: Schema.Array(Schema.UUID), event: Schema.Unknown }))
)

/** The read cache's tags of an announcement, those spelled as tags are (readcache/ReadCache.ts). */
const readTagsOf = (body: string) => body.split(" ").filter(isReadTag)

/**
 * Confirms a change announced with a reply channel (`<id>\n<reply channel> <token>`) once it is applied (for
 * the reads' channel, `<tag> <tag>…` in place of the id).
 */
const confirmApplied = (
  publisher: Redis,
  replyPrefix: string,
  body: string,
  apply?: (id: string) => void,
  accepts: (id: string) => boolean = isId
) => {
  const newline = body.indexOf("\n")
  const id = newline < 0 ? body : body.slice(0, newline)
  if (accepts(id)) apply?.(id)
  if (newline < 0) return
  const [replyChannel, token] = body.slice(newline + 1).split(" ")
  if (replyChannel?.startsWith(replyPrefix) && token) publisher.publish(replyChannel, token).catch(() => {})
}

/** Announces each id on `channel` to every instance from a process that is no instance (`talab …`), confirmed. */
const publishFromOutside = (
  url: string,
  prefix: string,
  channelOf: (names: Names) => string,
  ids: ReadonlyArray<string>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { REPLY_PREFIX } = namesOf(prefix)
      const channel = channelOf(namesOf(prefix))
      const client = yield* connect(url, "talab-cli", COMMAND_TIMEOUT_MS)
      const replies = yield* connect(url, "talab-cli-replies", COMMAND_TIMEOUT_MS)
      const origin = `cli-${randomUUID()}`
      const replyChannel = `${REPLY_PREFIX}${origin}`
      yield* Effect.tryPromise(() => replies.subscribe(replyChannel))
      const announce = makeAnnouncer(client, replies, origin, replyChannel)
      for (const id of ids) yield* announce(channel, id)
    })
  )

/**
 * Tells every instance on this Redis that sessions ended, as a logout on one of them does (`talab sessions
 * revoke`): each closes its sockets of those sessions with 4401 and forgets them.
 */
export const publishSessionEnds = (url: string, prefix: string, sessionIds: ReadonlyArray<string>) =>
  publishFromOutside(url, prefix, (names) => names.SESSIONS_CHANNEL, sessionIds)

/** Tells every instance on this Redis that users' rows changed (`talab admin grant|revoke`). */
export const publishUserChanges = (url: string, prefix: string, userIds: ReadonlyArray<string>) =>
  publishFromOutside(url, prefix, (names) => names.USER_CHANGES_CHANNEL, userIds)

const socketMember = (origin: string, holder: SocketHolder) => `${origin}|${holder.connectionId}|${holder.sessionId}`

/** A connection whose commands get `commandTimeoutMs`, or none yet when the start still has commands to send. */
const connect = (url: string, name: string, commandTimeoutMs: number | undefined) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new Redis(url, {
          lazyConnect: true,
          connectionName: name,
          // ioredis's own resubscribe after a reconnect leaves its promise unhandled: should the connection drop
          // again before Redis answers, the rejection would end the process. The fan-out resubscribes itself.
          autoResubscribe: false
        })
        // Also keeps ioredis from printing "unhandled error" before the outage reporter is attached.
        let lastError: Error | undefined
        client.on("error", (error: Error) => {
          lastError = error
        })
        try {
          await answeredWithin(client.connect())
          if (commandTimeoutMs !== undefined) limitCommands(client, commandTimeoutMs)
        } catch (error) {
          client.disconnect()
          throw lastError ?? error
        }
        return client
      },
      catch: (error) =>
        new RealtimeRedisConnectFailed({ reason: error instanceof Error ? error.message : String(error) })
    }),
    // A Redis that is away must not hold up the shutdown: quit politely for a moment, then just disconnect.
    (client) =>
      Effect.tryPromise(() => client.quit()).pipe(
        Effect.timeout("1 second"),
        Effect.orElse(() => Effect.sync(() => client.disconnect()))
      )
  )

/** Reports each Redis outage once instead of on every reconnect attempt. */
const reportOutages = (client: Redis, role: string, runtime: Runtime.Runtime<never>) => {
  let reported = false
  client.on("error", (error: Error) => {
    if (reported) return
    reported = true
    Runtime.runFork(runtime)(
      Effect.logWarning(`Realtime: Redis ${role} connection error`).pipe(Effect.annotateLogs({ error: error.message }))
    )
  })
  client.on("ready", () => {
    reported = false
  })
}

/** The fan-out between instances sharing one Redis: a subscriber connection and a command connection. */
export const makeRedisFanout = (
  url: string,
  prefix: string,
  inbound: FanoutInbound,
  options: { readonly commandTimeoutMs?: number } = {}
): Effect.Effect<Fanout, RealtimeRedisConnectFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const {
      SESSIONS_CHANNEL,
      USER_CHANGES_CHANNEL,
      USERS_CHANNEL,
      EVICT_CHANNEL,
      READS_CHANNEL,
      REPLY_PREFIX,
      FIXED_CHANNELS,
      SESSION_SOCKETS,
      USER_SOCKETS,
      SOCKET_SEQUENCE,
      audienceChannel,
      audienceOf
    } = namesOf(prefix)
    const runtime = yield* Effect.runtime<never>()
    const origin = randomUUID()
    const commandTimeoutMs = options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS
    const commands = yield* connect(url, "talab-ws-commands", commandTimeoutMs)
    // Its budget once it has subscribed: the start's subscribe is bounded as the connection is.
    const subscriber = yield* connect(url, "talab-ws-subscriber", undefined)
    reportOutages(commands, "command", runtime)
    reportOutages(subscriber, "subscriber", runtime)
    yield* watchReadiness("ws_commands", commands)
    yield* watchReadiness("ws_subscriber", subscriber)

    const evictIfMine = (member: string) => {
      const [instance, connectionId] = member.split("|")
      if (instance === origin) inbound.evict(Number(connectionId))
    }

    subscriber.on("message", (channel: string, payload: string) => {
      const newline = payload.indexOf("\n")
      if (newline < 0) return
      // What this instance published it has applied or delivered already; it only confirms its own announcements.
      const mine = payload.slice(0, newline) === origin
      const body = payload.slice(newline + 1)
      if (channel === SESSIONS_CHANNEL)
        return confirmApplied(commands, REPLY_PREFIX, body, mine ? undefined : inbound.sessionEnded)
      if (channel === USER_CHANGES_CHANNEL)
        return confirmApplied(commands, REPLY_PREFIX, body, mine ? undefined : inbound.userChanged)
      if (channel === READS_CHANNEL) {
        const drop = (tags: string) => inbound.readsChanged(readTagsOf(tags))
        return confirmApplied(commands, REPLY_PREFIX, body, mine ? undefined : drop, () => true)
      }
      if (mine) return
      if (channel === EVICT_CHANNEL) return evictIfMine(body)
      if (channel === USERS_CHANNEL) {
        return Either.match(decodeUserEvent(body), {
          onLeft: () => undefined,
          onRight: ({ event, user_ids }) => inbound.deliverToUsers(user_ids, JSON.stringify(event))
        })
      }
      const match = audienceOf(channel)
      if (match) inbound.deliver({ conversationId: match[1]!, userId: match[2]! }, body)
    })
    const replyChannel = `${REPLY_PREFIX}${origin}`
    const announce = makeAnnouncer(commands, subscriber, origin, replyChannel)
    yield* Effect.tryPromise({
      try: () => answeredWithin(subscriber.subscribe(...FIXED_CHANNELS, replyChannel)),
      catch: (error) => new RealtimeRedisConnectFailed({ reason: String(error) })
    })
    limitCommands(subscriber, commandTimeoutMs)
    // The channels to listen on again after a reconnect: the fixed ones and every audience watched here.
    const channels = new Set([...FIXED_CHANNELS, replyChannel])
    // While the subscriber is away, changes published meanwhile are lost to this instance: say so, and
    // again when it is back (the session cache stops trusting itself in between).
    subscriber.on("close", () => inbound.hearing(false))
    subscriber.on("ready", () => {
      inbound.hearing(true)
      subscriber
        .subscribe(...channels)
        .catch((error: unknown) =>
          Runtime.runFork(runtime)(
            Effect.logWarning("Realtime: Redis resubscribe failed").pipe(Effect.annotateLogs({ error: String(error) }))
          )
        )
    })

    const warnOnFailure = (what: string) => (effect: Effect.Effect<unknown, unknown>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.catchAll((error) =>
          Effect.logWarning(`Realtime: Redis ${what} failed`).pipe(Effect.annotateLogs({ error: String(error) }))
        )
      )
    const announceConfirmed = (channel: string, id: string, what: string) =>
      announce(channel, id).pipe(
        Effect.flatMap((missing) =>
          missing === 0
            ? Effect.void
            : Effect.logWarning(`Realtime: ${missing} instance(s) did not confirm a ${what} in time`)
        ),
        warnOnFailure(`${what} publish`)
      )

    return {
      reachesOthers: true,
      watch: (audience) =>
        Effect.tryPromise({
          try: () => {
            channels.add(audienceChannel(audience))
            return subscriber.subscribe(audienceChannel(audience))
          },
          catch: (error) => (error instanceof Error ? error : new Error(String(error)))
        }).pipe(Effect.asVoid),
      unwatch: (audience) =>
        Effect.tryPromise(() => {
          channels.delete(audienceChannel(audience))
          return subscriber.unsubscribe(audienceChannel(audience))
        }).pipe(warnOnFailure("unsubscribe")),
      presentElsewhere: (audience) =>
        Effect.tryPromise(() => commands.pubsub("NUMSUB", audienceChannel(audience))).pipe(
          Effect.map((reply) => Number((reply as Array<unknown>)[1] ?? 0) > 0),
          // Unknown presence counts as offline: a push too many beats a message nobody is told about.
          Effect.catchAll((error) =>
            Effect.as(
              Effect.logWarning("Realtime: Redis presence check failed").pipe(
                Effect.annotateLogs({ error: String(error) })
              ),
              false
            )
          )
        ),
      deliver: (audience, frame) =>
        Effect.tryPromise(() => commands.publish(audienceChannel(audience), `${origin}\n${frame}`)).pipe(
          warnOnFailure("publish")
        ),
      deliverToUsers: (userIds, event) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(userIds.length / USERS_PER_PUBLISH) }, (_, i) =>
            userIds.slice(i * USERS_PER_PUBLISH, (i + 1) * USERS_PER_PUBLISH)
          ),
          (chunk) =>
            Effect.tryPromise(() =>
              commands.publish(USERS_CHANNEL, `${origin}\n{"user_ids":${JSON.stringify(chunk)},"event":${event}}`)
            ).pipe(warnOnFailure("user event publish")),
          { discard: true }
        ),
      endSession: (sessionId) => announceConfirmed(SESSIONS_CHANNEL, sessionId, "session end"),
      userChanged: (userId) => announceConfirmed(USER_CHANGES_CHANNEL, userId, "user change"),
      readsChanged: (tags) => announceConfirmed(READS_CHANNEL, tags.join(" "), "read cache drop"),
      admit: (holder, caps) =>
        Effect.gen(function* () {
          const evicted = (yield* Effect.tryPromise(() =>
            commands.eval(
              ADMIT_SCRIPT,
              3,
              `${SESSION_SOCKETS}${holder.sessionId}`,
              `${USER_SOCKETS}${holder.userId}`,
              SOCKET_SEQUENCE,
              socketMember(origin, holder),
              caps.perSession,
              caps.perUser,
              SOCKET_SETS_TTL_SECONDS,
              SESSION_SOCKETS
            )
          )) as Array<string>
          for (const member of evicted) {
            if (member.startsWith(`${origin}|`)) evictIfMine(member)
            else {
              yield* Effect.tryPromise(() => commands.publish(EVICT_CHANNEL, `${origin}\n${member}`)).pipe(
                warnOnFailure("eviction publish")
              )
            }
          }
          return true
        }).pipe(
          // Without the shared count the caps still hold on this instance: the hub applies them itself.
          Effect.catchAll((error) =>
            Effect.as(
              Effect.logWarning("Realtime: Redis socket count failed").pipe(
                Effect.annotateLogs({ error: String(error) })
              ),
              false
            )
          )
        ),
      release: (holder) =>
        Effect.tryPromise(() =>
          commands
            .multi()
            .zrem(`${SESSION_SOCKETS}${holder.sessionId}`, socketMember(origin, holder))
            .zrem(`${USER_SOCKETS}${holder.userId}`, socketMember(origin, holder))
            .exec()
        ).pipe(warnOnFailure("socket release"))
    } satisfies Fanout
  })
