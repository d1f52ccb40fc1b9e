import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { RateLimiter } from "@talab/core"
import { Cause, Context, Effect, Exit, Layer, Logger, type Scope, TestClock } from "effect"
import { Redis } from "ioredis"
import * as MemoryRateLimiter from "../src/adapters/ratelimit/MemoryRateLimiter.js"
import * as RedisRateLimiter from "../src/adapters/ratelimit/RedisRateLimiter.js"

type Limiter = RateLimiter["Type"]

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const MINUTE = 60_000

// Keys of this run live under their own prefix, and each test gets a sub-prefix: TestClock restarts at 0 per test,
// so one test's calls must not land in another test's windows.
const runPrefix = `test:ratelimit:${randomUUID()}:`
let redisTestCount = 0
const freshRedisPrefix = () => `${runPrefix}${redisTestCount++}:`

const limiterFrom = <E>(layer: Layer.Layer<RateLimiter, E>): Effect.Effect<Limiter, E, Scope.Scope> =>
  Effect.map(Layer.build(layer), Context.get(RateLimiter))

afterAll(async () => {
  const redis = new Redis(REDIS_URL)
  try {
    const keys = await redis.keys(`${runPrefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  } finally {
    await redis.quit()
  }
})

/** The behaviour every RateLimiter adapter must show. `makeLimiter` is run once per test. */
const rateLimiterContract = (store: string, makeLimiter: () => Effect.Effect<Limiter, unknown, Scope.Scope>) =>
  describe(`${store}: sliding-window contract`, () => {
    it.scoped("allows exactly `limit` calls in a window, then denies with a retry time", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const consume = limiter.consume({ key: "phone:+15550001", limit: 3, windowMs: 10 * MINUTE })

        const allowed = []
        for (let i = 0; i < 3; i++) {
          allowed.push(yield* consume)
          yield* TestClock.adjust(1_000)
        }
        expect(allowed.map((d) => [d.allowed, d.remaining, d.retryAfterMs])).toEqual([
          [true, 2, 0],
          [true, 1, 0],
          [true, 0, 0]
        ])
        expect(allowed[0]!.resetMs).toBe(10 * MINUTE)
        expect(allowed[0]!.limit).toBe(3)

        // now = 3 s; calls at 0, 1 s, 2 s fill the window
        const denied = yield* consume
        expect(denied).toEqual({
          allowed: false,
          limit: 3,
          remaining: 0,
          retryAfterMs: 10 * MINUTE - 3_000,
          resetMs: 10 * MINUTE - 1_000
        })
      })
    )

    it.scoped("allows one more call once the oldest call has left the window, and not a moment before", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const consume = limiter.consume({ key: "user:1", limit: 2, windowMs: MINUTE })
        yield* consume
        yield* TestClock.adjust(10_000)
        yield* consume

        const denied = yield* consume
        expect(denied.allowed).toBe(false)
        expect(denied.retryAfterMs).toBe(MINUTE - 10_000)

        yield* TestClock.adjust(denied.retryAfterMs - 1)
        expect((yield* consume).allowed).toBe(false)

        yield* TestClock.adjust(1)
        const afterOldestLeft = yield* consume
        expect(afterOldestLeft).toMatchObject({ allowed: true, remaining: 0, retryAfterMs: 0, resetMs: MINUTE })
        expect((yield* consume).allowed).toBe(false)
      })
    )

    it.scoped("is a strict sliding window: a call at W frees only the slot of the call at 0, not both", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const W = MINUTE
        const consume = limiter.consume({ key: "ip:10.0.0.1", limit: 2, windowMs: W })

        expect((yield* consume).allowed).toBe(true) // t = 0
        yield* TestClock.adjust(W - 1)
        expect((yield* consume).allowed).toBe(true) // t = W - 1
        expect(yield* consume).toMatchObject({ allowed: false, retryAfterMs: 1 })

        yield* TestClock.adjust(1) // t = W
        expect(yield* consume).toMatchObject({ allowed: true, remaining: 0 })
        // A fixed window would have reset here and allowed this one too.
        expect(yield* consume).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: W - 1 })
      })
    )

    it.scoped("does not count denied calls", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const consume = limiter.consume({ key: "user:2", limit: 1, windowMs: 1_000 })

        expect((yield* consume).allowed).toBe(true) // t = 0
        yield* TestClock.adjust(500)
        expect((yield* consume).allowed).toBe(false) // t = 500, must leave no trace
        yield* TestClock.adjust(500)
        expect(yield* consume).toMatchObject({ allowed: true, retryAfterMs: 0 }) // t = 1000
      })
    )

    it.scoped("keeps keys independent", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const consume = (key: string) => limiter.consume({ key, limit: 1, windowMs: MINUTE })

        expect((yield* consume("phone:a")).allowed).toBe(true)
        expect((yield* consume("phone:a")).allowed).toBe(false)
        expect(yield* consume("phone:b")).toMatchObject({ allowed: true, remaining: 0 })
        expect((yield* consume("phone:b")).allowed).toBe(false)
        expect((yield* consume("phone:a")).allowed).toBe(false)
      })
    )

    it.scoped("rejects a limit below one as a defect", () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter()
        const exit = yield* Effect.exit(limiter.consume({ key: "k", limit: 0, windowMs: MINUTE }))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("limit must be an integer >= 1")
      })
    )
  })

rateLimiterContract("memory", () => limiterFrom(MemoryRateLimiter.layer()))
rateLimiterContract("redis", () =>
  Effect.suspend(() => limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix: freshRedisPrefix() })))
)

describe("memory: idle keys", () => {
  it.effect("drops keys whose window has passed at the next sweep, and keeps the rest", () =>
    Effect.gen(function* () {
      const limiter = yield* MemoryRateLimiter.make({ sweepIntervalMs: MINUTE })
      for (let i = 0; i < 100; i++) {
        yield* limiter.consume({ key: `ip:${i}`, limit: 5, windowMs: 1_000 })
      }
      yield* limiter.consume({ key: "phone:long-window", limit: 3, windowMs: 10 * MINUTE })
      expect(yield* limiter.trackedKeyCount).toBe(101)

      yield* TestClock.adjust(MINUTE)
      yield* limiter.consume({ key: "ip:fresh", limit: 5, windowMs: 1_000 })
      expect(yield* limiter.trackedKeyCount).toBe(2)
    })
  )
})

describe("redis: shared budget and atomicity", () => {
  it.scoped("two limiter instances on separate connections with one prefix share one budget", () =>
    Effect.gen(function* () {
      const prefix = freshRedisPrefix()
      const serverA = yield* limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix }))
      const serverB = yield* limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix }))
      const options = { key: "phone:+15550002", limit: 3, windowMs: 10 * MINUTE }

      const decisions = [
        yield* serverA.consume(options),
        yield* serverB.consume(options),
        yield* serverA.consume(options),
        yield* serverB.consume(options),
        yield* serverA.consume(options)
      ]
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0]
      ])
    })
  )

  it.scoped("under 40 concurrent calls over two connections with limit 10 allows exactly 10", () =>
    Effect.gen(function* () {
      const prefix = freshRedisPrefix()
      const serverA = yield* limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix }))
      const serverB = yield* limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix }))
      const options = { key: "user:hot", limit: 10, windowMs: MINUTE }

      // All at the same Clock millisecond, so this also shows same-time calls are counted separately.
      const decisions = yield* Effect.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? serverA : serverB).consume(options)),
        { concurrency: "unbounded" }
      )
      const allowed = decisions.filter((d) => d.allowed)
      expect(allowed).toHaveLength(10)
      expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterMs === MINUTE)).toBe(
        true
      )
    })
  )

  it.scoped("stores each key with an expiry of one window, so idle keys leave Redis", () =>
    Effect.gen(function* () {
      const prefix = freshRedisPrefix()
      const limiter = yield* limiterFrom(RedisRateLimiter.layer({ url: REDIS_URL, prefix }))
      yield* limiter.consume({ key: "ip:ttl", limit: 5, windowMs: 10 * MINUTE })

      const redis = yield* connectRaw
      const ttl = yield* Effect.promise(() => redis.pttl(`${prefix}ip:ttl`))
      expect(ttl).toBeGreaterThan(10 * MINUTE - 5_000)
      expect(ttl).toBeLessThanOrEqual(10 * MINUTE)
    })
  )

  it.scoped("keeps counting in memory while Redis fails (never fail open), and logs the outage once", () =>
    Effect.gen(function* () {
      const warnings: Array<string> = []
      const collectWarnings = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(message))
      })
      const redis = yield* connectRaw
      const limiter = yield* RedisRateLimiter.make(redis, { prefix: freshRedisPrefix() })
      const options = { key: "phone:+15550003", limit: 1, windowMs: MINUTE }
      expect((yield* limiter.consume(options)).allowed).toBe(true)
      expect((yield* limiter.consume(options)).allowed).toBe(false)

      redis.disconnect()
      const whileDown = yield* Effect.all(
        [
          limiter.consume(options),
          limiter.consume({ ...options, key: "phone:+15550004" }),
          limiter.consume({ ...options, key: "phone:+15550004" })
        ],
        { concurrency: 1 }
      ).pipe(Effect.provide(Logger.add(collectWarnings)))
      // The call Redis allowed before the outage is remembered; a fresh key gets its one call, then no more.
      expect(whileDown.map((decision) => decision.allowed)).toEqual([false, true, false])
      expect(whileDown[0]).toMatchObject({ limit: 1, remaining: 0 })
      expect(whileDown[0]!.retryAfterMs).toBeGreaterThan(0)
      expect(warnings).toEqual(["Rate limiter: Redis unreachable, counting in this instance's memory until it is back"])
    })
  )

  it.scoped("fails to build the layer when Redis is unreachable at start", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(limiterFrom(RedisRateLimiter.layer({ url: "redis://127.0.0.1:1" })))
      expect(exit).toMatchObject({ _tag: "Failure" })
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("RedisRateLimiterConnectFailed")
    })
  )
})

/** A plain client for looking at Redis from the side, quit when the test's scope closes. */
const connectRaw = Effect.acquireRelease(
  Effect.promise(async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true })
    await redis.connect()
    return redis
  }),
  (redis) => Effect.promise(() => (redis.status === "end" ? Promise.resolve() : redis.quit().then(() => undefined)))
)
