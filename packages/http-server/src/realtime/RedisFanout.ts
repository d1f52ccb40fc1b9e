import { randomUUID } from "node:crypto"
import { Data, Effect, Runtime, type Scope } from "effect"
import { Redis } from "ioredis"
import type { Audience, Fanout, FanoutInbound } from "./Fanout.js"

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
const PREFIX = "talab:ws:"
const SESSIONS_CHANNEL = `${PREFIX}sessions`
const audienceChannel = ({ conversationId, userId }: Audience) => `${PREFIX}c:${conversationId}:u:${userId}`
const audiencePattern = new RegExp(`^${PREFIX}c:([^:]+):u:([^:]+)$`)

const connect = (url: string, name: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new Redis(url, { lazyConnect: true, commandTimeout: COMMAND_TIMEOUT_MS, connectionName: name })
        // Also keeps ioredis from printing "unhandled error" before the outage reporter is attached.
        let lastError: Error | undefined
        client.on("error", (error: Error) => {
          lastError = error
        })
        try {
          await client.connect()
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
  inbound: FanoutInbound
): Effect.Effect<Fanout, RealtimeRedisConnectFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const origin = randomUUID()
    const commands = yield* connect(url, "talab-ws-commands")
    const subscriber = yield* connect(url, "talab-ws-subscriber")
    reportOutages(commands, "command", runtime)
    reportOutages(subscriber, "subscriber", runtime)

    subscriber.on("message", (channel: string, payload: string) => {
      const newline = payload.indexOf("\n")
      if (newline < 0 || payload.slice(0, newline) === origin) return
      const body = payload.slice(newline + 1)
      if (channel === SESSIONS_CHANNEL) return inbound.sessionEnded(body)
      const match = audiencePattern.exec(channel)
      if (match) inbound.deliver({ conversationId: match[1]!, userId: match[2]! }, body)
    })
    yield* Effect.tryPromise({
      try: () => subscriber.subscribe(SESSIONS_CHANNEL),
      catch: (error) => new RealtimeRedisConnectFailed({ reason: String(error) })
    })

    const warnOnFailure = (what: string) => (effect: Effect.Effect<unknown, unknown>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.catchAll((error) =>
          Effect.logWarning(`Realtime: Redis ${what} failed`).pipe(Effect.annotateLogs({ error: String(error) }))
        )
      )

    return {
      watch: (audience) =>
        Effect.tryPromise({
          try: () => subscriber.subscribe(audienceChannel(audience)),
          catch: (error) => (error instanceof Error ? error : new Error(String(error)))
        }).pipe(Effect.asVoid),
      unwatch: (audience) =>
        Effect.tryPromise(() => subscriber.unsubscribe(audienceChannel(audience))).pipe(warnOnFailure("unsubscribe")),
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
      endSession: (sessionId) =>
        Effect.tryPromise(() => commands.publish(SESSIONS_CHANNEL, `${origin}\n${sessionId}`)).pipe(
          warnOnFailure("session publish")
        )
    } satisfies Fanout
  })
