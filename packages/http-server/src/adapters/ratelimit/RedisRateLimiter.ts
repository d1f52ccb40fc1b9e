import { createHash, randomUUID } from "node:crypto"
import { type RateLimitDecision, RateLimiter } from "@talab/core"
import { Clock, Data, Effect, Layer, Runtime } from "effect"
import { Redis } from "ioredis"

/** Options for a limiter over a Redis client the caller owns. */
export interface RedisRateLimiterOptions {
  /** Prepended to every key, so several limiters (or test runs) can share one Redis. Default "ratelimit:". */
  readonly prefix?: string
}

/** Options for the layer, which opens and closes its own connection. */
export interface RedisRateLimiterLayerOptions extends RedisRateLimiterOptions {
  /** A redis:// or rediss:// URL. */
  readonly url: string
  /** A call that takes longer than this is treated as Redis failing (and so allowed). Default 500 ms. */
  readonly commandTimeoutMs?: number
}

/** The first connection to Redis could not be made when the layer was built. */
export class RedisRateLimiterConnectFailed extends Data.TaggedError("RedisRateLimiterConnectFailed")<{
  readonly reason: string
}> {}

const DEFAULT_PREFIX = "ratelimit:"
const DEFAULT_COMMAND_TIMEOUT_MS = 500

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
 */
export const make = (redis: Redis, options: RedisRateLimiterOptions = {}): Effect.Effect<RateLimiter["Type"]> =>
  Effect.sync(() => {
    const prefix = options.prefix ?? DEFAULT_PREFIX
    // Two calls in the same millisecond need distinct members, also across server instances.
    const memberPrefix = randomUUID()
    let sequence = 0

    const runScript = (key: string, args: ReadonlyArray<string | number>) =>
      redis
        .evalsha(SLIDING_WINDOW_SHA, 1, key, ...args)
        .catch((error: unknown) =>
          error instanceof Error && error.message.startsWith("NOSCRIPT")
            ? redis.eval(SLIDING_WINDOW_SCRIPT, 1, key, ...args)
            : Promise.reject(error)
        )

    const consume: RateLimiter["Type"]["consume"] = ({ key, limit, windowMs }) =>
      Effect.gen(function* () {
        yield* validateLimits(limit, windowMs)
        const now = yield* Clock.currentTimeMillis
        const member = `${memberPrefix}:${sequence++}`
        return yield* Effect.tryPromise(() => runScript(prefix + key, [now, windowMs, limit, member])).pipe(
          Effect.map((reply): RateLimitDecision => {
            const [allowed, count, blockingAt, newestAt] = parseScriptReply(reply) as [number, number, number, number]
            return {
              allowed: allowed === 1,
              limit,
              remaining: Math.max(0, limit - count),
              retryAfterMs: allowed === 1 ? 0 : blockingAt + windowMs - now,
              resetMs: count === 0 ? 0 : newestAt + windowMs - now
            }
          }),
          // Fail open: these limits guard against abuse, and a Redis outage must not turn into an outage of sign-in
          // and messaging for every user. The cost is that limits are not enforced while Redis is down, which the
          // warning makes visible.
          Effect.catchAll((error) =>
            Effect.as(
              Effect.logWarning("Rate limiter: Redis call failed, allowing the call unchecked").pipe(
                Effect.annotateLogs({ rateLimitKey: key, error: String(error.error) })
              ),
              failOpenDecision(limit, windowMs)
            )
          )
        )
      })

    return RateLimiter.of({ consume })
  })

/** What a call is told when it was let through without being counted: as if it were alone in its window. */
const failOpenDecision = (limit: number, windowMs: number): RateLimitDecision => ({
  allowed: true,
  limit,
  remaining: limit - 1,
  retryAfterMs: 0,
  resetMs: windowMs
})

/** Opens an ioredis connection for the life of the scope; fails if the first connection cannot be made. */
const acquireClient = (options: RedisRateLimiterLayerOptions) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const client = new Redis(options.url, {
      lazyConnect: true,
      // While Redis is away, fail calls at once (and so allow them) instead of queueing them behind the reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
    })
    // Without a listener ioredis prints every reconnect error; report each outage once instead.
    let outageReported = false
    client.on("error", (error: Error) => {
      if (outageReported) return
      outageReported = true
      Runtime.runFork(runtime)(
        Effect.logWarning("Rate limiter: Redis connection error").pipe(Effect.annotateLogs({ error: error.message }))
      )
    })
    client.on("ready", () => {
      outageReported = false
    })
    yield* Effect.tryPromise({
      try: () => client.connect(),
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
 * scope closes. The layer fails if Redis is unreachable at start; later failures are let through (fail open).
 */
export const layer = (options: RedisRateLimiterLayerOptions): Layer.Layer<RateLimiter, RedisRateLimiterConnectFailed> =>
  Layer.scoped(
    RateLimiter,
    Effect.flatMap(Effect.acquireRelease(acquireClient(options), releaseClient), (client) => make(client, options))
  )
