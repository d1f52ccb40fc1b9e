import { createHash, randomUUID } from "node:crypto"
import { type RateLimitDecision, RateLimiter } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { Redis } from "ioredis"
import { variables } from "../../config/Settings.js"
import { watchReadiness } from "../../telemetry/RedisReadiness.js"
import { connectThenLimitCommands } from "../RedisConnect.js"
import * as MemoryRateLimiter from "./MemoryRateLimiter.js"

/** Options for a limiter over a Redis client the caller owns. */
export interface RedisRateLimiterOptions {
  /** Prepended to every key, so several limiters (or test runs) can share one Redis. Default "ratelimit:". */
  readonly prefix?: string
}

/** Options for the layer, which opens and closes its own connection. */
export interface RedisRateLimiterLayerOptions extends RedisRateLimiterOptions {
  /** A redis:// or rediss:// URL. */
  readonly url: string
  /** A call that takes longer than this is treated as Redis failing (and so counted in memory). Default: the server's. */
  readonly commandTimeoutMs?: number
}

/** The first connection to Redis could not be made when the layer was built. */
export class RedisRateLimiterConnectFailed extends Data.TaggedError("RedisRateLimiterConnectFailed")<{
  readonly reason: string
}> {}

const DEFAULT_PREFIX = "ratelimit:"
const DEFAULT_COMMAND_TIMEOUT_MS = variables.RATE_LIMIT_REDIS_TIMEOUT_MS.default

/**
 * One atomic step of the sliding-window log kept as a sorted set (score = call time in ms).
 * KEYS[1] = key; ARGV = now, windowMs, limit, unique member.
 * Returns { allowed (0|1), count after the call, time of the call whose expiry frees a slot (0 when allowed), newest }.
 */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)

local allowed = 0
local blockingAt = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  allowed = 1
else
  local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  blockingAt = tonumber(blocking[2])
end

local newestAt = 0
if count > 0 then
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  newestAt = tonumber(newest[2])
end

return { allowed, count, blockingAt, newestAt }
`

const SLIDING_WINDOW_SHA = createHash("sha1").update(SLIDING_WINDOW_SCRIPT).digest("hex")

/** A limit below one or a non-positive window is a configuration bug, not a runtime condition. */
const validateLimits = (limit: number, windowMs: number): Effect.Effect<void> =>
  Number.isInteger(limit) && limit >= 1 && Number.isFinite(windowMs) && windowMs > 0
    ? Effect.void
    : Effect.dieMessage(`RateLimiter: limit must be an integer >= 1 and windowMs > 0 (got ${limit}, ${windowMs})`)

const parseScriptReply = (reply: unknown): ReadonlyArray<number> => {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === "number")) {
    throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`)
  }
  return reply
}

/**
 * Builds a strict sliding-window log in Redis over a client the caller owns, so that every server instance using
 * the same Redis and prefix shares one budget per key. Each call is one Lua script, so concurrent calls cannot
 * both take the last slot. The time of a call comes from Effect's Clock, not from Redis.
 *
 * While Redis is unreachable the limits still hold: each instance counts in its own memory (a budget per
 * instance, so N instances allow at most N times the limit; never unlimited). That in-process log also mirrors
 * every call Redis allowed, so an outage starts from the counts of the current window, and after the outage a
 * call is allowed only if both Redis and the mirror have room (calls allowed during the outage never reached
 * Redis). The outage is logged once when it starts and once when it ends.
 */
export const make = (redis: Redis, options: RedisRateLimiterOptions = {}): Effect.Effect<RateLimiter["Type"]> =>
  Effect.gen(function* () {
    const prefix = options.prefix ?? DEFAULT_PREFIX
    const runtime = yield* Effect.runtime<never>()
    const memory = yield* MemoryRateLimiter.make()
    // Two calls in the same millisecond need distinct members, also across server instances.
    const memberPrefix = randomUUID()
    let sequence = 0
    let outage = false

    const outageStarted = (reason: string) =>
      Effect.suspend(() => {
        if (outage) return Effect.void
        outage = true
        return Effect.logWarning(
          "Rate limiter: Redis unreachable, counting in this instance's memory until it is back"
        ).pipe(Effect.annotateLogs({ error: reason }))
      })
    const outageEnded = Effect.suspend(() => {
      if (!outage) return Effect.void
      outage = false
      return Effect.logInfo("Rate limiter: Redis reachable again, counting in Redis")
    })
    // Without an error listener ioredis prints every reconnect attempt; the outage is logged once instead.
    redis.on("error", (error: Error) => Runtime.runFork(runtime)(outageStarted(error.message)))
    redis.on("ready", () => Runtime.runFork(runtime)(outageEnded))

    const runScript = (key: string, args: ReadonlyArray<string | number>) =>
      redis
        .evalsha(SLIDING_WINDOW_SHA, 1, key, ...args)
        .catch((error: unknown) =>
          error instanceof Error && error.message.startsWith("NOSCRIPT")
            ? redis.eval(SLIDING_WINDOW_SCRIPT, 1, key, ...args)
            : Promise.reject(error)
        )

    const consumeInRedis = (key: string, limit: number, windowMs: number, now: number) =>
      Effect.tryPromise(() => runScript(prefix + key, [now, windowMs, limit, `${memberPrefix}:${sequence++}`])).pipe(
        Effect.map((reply): RateLimitDecision => {
          const [allowed, count, blockingAt, newestAt] = parseScriptReply(reply) as [number, number, number, number]
          return {
            allowed: allowed === 1,
            limit,
            remaining: Math.max(0, limit - count),
            retryAfterMs: allowed === 1 ? 0 : blockingAt + windowMs - now,
            resetMs: count === 0 ? 0 : newestAt + windowMs - now
          }
        })
      )

    const consume: RateLimiter["Type"]["consume"] = (request) =>
      Effect.gen(function* () {
        const { key, limit, windowMs } = request
        yield* validateLimits(limit, windowMs)
        // Not connected: no point waiting for a command to fail.
        if (redis.status !== "ready") {
          yield* outageStarted(`connection ${redis.status}`)
          return yield* memory.consume(request)
        }
        const now = yield* Clock.currentTimeMillis
        const counted = yield* Effect.either(consumeInRedis(key, limit, windowMs, now))
        if (counted._tag === "Left") {
          yield* outageStarted(String(counted.left.error))
          return yield* memory.consume(request)
        }
        yield* outageEnded
        if (!counted.right.allowed) return counted.right
        const mirrored = yield* memory.consume(request)
        return mirrored.allowed ? counted.right : mirrored
      })

    return RateLimiter.of({ consume })
  })

/** Opens an ioredis connection for the life of the scope; fails if the first connection cannot be made. */
const acquireClient = (options: RedisRateLimiterLayerOptions) =>
  Effect.gen(function* () {
    const client = new Redis(options.url, {
      lazyConnect: true,
      // While Redis is away, fail calls at once (and so count them in memory) instead of queueing them.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1
    })
    // Until the limiter listens (see make), keep ioredis from printing a failed first connection.
    client.on("error", () => {})
    yield* Effect.tryPromise({
      try: () => connectThenLimitCommands(client, options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
      catch: (error) => {
        client.disconnect()
        return new RedisRateLimiterConnectFailed({ reason: error instanceof Error ? error.message : String(error) })
      }
    })
    return client
  })

const releaseClient = (client: Redis) =>
  Effect.tryPromise(() => client.quit()).pipe(Effect.orElse(() => Effect.sync(() => client.disconnect())))

/**
 * Provides the RateLimiter port backed by Redis, with a connection opened when the layer is built and quit when its
 * scope closes. The layer fails if Redis is unreachable at start; later, while it is unreachable, each instance
 * counts in its own memory (see make).
 */
export const layer = (options: RedisRateLimiterLayerOptions): Layer.Layer<RateLimiter, RedisRateLimiterConnectFailed> =>
  Layer.scoped(
    RateLimiter,
    Effect.flatMap(Effect.acquireRelease(acquireClient(options), releaseClient), (client) =>
      Effect.zipRight(watchReadiness("rate_limiter", client), make(client, options))
    )
  )
