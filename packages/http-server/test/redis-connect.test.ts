import { randomUUID } from "node:crypto"
import { createServer, type Server, type Socket } from "node:net"
import { RateLimiter } from "@talab/core"
import { Context, Effect, Layer } from "effect"
import { Redis } from "ioredis"
import { afterAll, describe, expect, it } from "vitest"
import { connectThenLimitCommands } from "../src/adapters/RedisConnect.js"
import * as RedisRateLimiter from "../src/adapters/ratelimit/RedisRateLimiter.js"
import type { FanoutInbound } from "../src/realtime/Fanout.js"
import { makeRedisFanout } from "../src/realtime/RedisFanout.js"
import { rateLimiterLayer } from "../src/server/Adapters.js"
import { blockThreadFor, stallEventLoop } from "./support/stalled-event-loop.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const prefix = `test:redis-connect:${randomUUID()}:`

afterAll(async () => {
  const redis = new Redis(REDIS_URL)
  try {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  } finally {
    await redis.quit()
  }
})

/** Retries `attempt` until it holds: right after a stall, on a loaded machine, one command may still outlast 100 ms. */
const eventually = async (attempt: () => Promise<boolean>, withinMs = 10_000) => {
  const deadline = Date.now() + withinMs
  while (Date.now() < deadline) {
    if (await attempt().catch(() => false)) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}

const lazyClient = () => {
  const client = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 })
  client.on("error", () => {})
  return client
}

describe("the first connection to Redis", () => {
  it("survives a start that stalls the event loop past a command's budget, and commands keep the budget after", async () => {
    const client = lazyClient()
    try {
      const stop = stallEventLoop(300)
      try {
        await connectThenLimitCommands(client, 100)
      } finally {
        stop()
      }
      expect(client.status).toBe("ready")
      expect(await eventually(async () => (await client.ping()) === "PONG")).toBe(true)
      // A blocking pop that waits a second on an empty list is answered long after the 100 ms budget.
      await expect(client.blpop(`${prefix}never-pushed`, 1)).rejects.toThrow("Command timed out")
    } finally {
      client.disconnect()
    }
  })

  it("still fails the start when Redis accepts the connection and never answers", async () => {
    const silent: Array<Socket> = []
    const server: Server = createServer((socket) => silent.push(socket))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as { port: number }).port
    const client = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 1 })
    client.on("error", () => {})
    try {
      const started = Date.now()
      await expect(connectThenLimitCommands(client, 100, 400)).rejects.toThrow("did not answer within 400 ms")
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      client.disconnect()
      for (const socket of silent) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("the rate limiter's layer is built through such a stall, and counts in Redis", async () => {
    const limiterPrefix = `${prefix}limiter:`
    const counted = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const stop = stallEventLoop(300)
          const context = yield* Layer.build(
            RedisRateLimiter.layer({ url: REDIS_URL, prefix: limiterPrefix, commandTimeoutMs: 100 })
          ).pipe(Effect.ensuring(Effect.sync(stop)))
          const limiter = Context.get(context, RateLimiter)
          const redis = new Redis(REDIS_URL)
          // A call that outlasts its budget is counted in memory instead; the next one goes to Redis again.
          const inRedis = () =>
            Effect.runPromise(limiter.consume({ key: "ip:stalled-start", limit: 50, windowMs: 60_000 })).then(
              async () => (await redis.keys(`${limiterPrefix}*`)).length === 1
            )
          return yield* Effect.promise(() => eventually(inRedis).finally(() => redis.quit()))
        })
      )
    )
    expect(counted).toBe(true)
  })

  it("the WebSocket fan-out is made through such a stall, and delivers between instances", async () => {
    const fanoutPrefix = `${prefix}ws:`
    const delivered: Array<string> = []
    const inbound = (into?: Array<string>): FanoutInbound => ({
      deliver: () => {},
      deliverToUsers: (userIds) => into?.push(...userIds),
      sessionEnded: () => {},
      userChanged: () => {},
      readsChanged: () => {},
      hearing: () => {},
      evict: () => {}
    })
    const userId = randomUUID()
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const stop = stallEventLoop(300)
          const [sender] = yield* Effect.all(
            [
              makeRedisFanout(REDIS_URL, fanoutPrefix, inbound(), { commandTimeoutMs: 100 }),
              makeRedisFanout(REDIS_URL, fanoutPrefix, inbound(delivered), { commandTimeoutMs: 100 })
            ],
            { concurrency: "unbounded" }
          ).pipe(Effect.ensuring(Effect.sync(stop)))
          yield* Effect.promise(() =>
            eventually(async () => {
              await Effect.runPromise(sender.deliverToUsers([userId], "{}"))
              return eventually(async () => delivered.includes(userId), 1_000)
            })
          )
        })
      )
    )
    expect(delivered).toContain(userId)
  })
})

describe("RATE_LIMIT_REDIS_TIMEOUT_MS", () => {
  /**
   * Another instance has spent a budget of one in Redis; this one counts on it while its event loop is blocked for
   * 800 ms right after the command is sent, as on a loaded machine: the answer is in by then, but the command's timer
   * runs before the socket is read. Refused means counted in Redis; allowed, counted in this instance's memory.
   */
  const allowedThroughStall = (redisLimiterTimeoutMs: number) => {
    const settings = {
      redisUrl: REDIS_URL,
      redisPrefix: `${prefix}timeout-${redisLimiterTimeoutMs}:`,
      redisLimiterTimeoutMs
    }
    const limiterOf = (context: Context.Context<RateLimiter>) => (key: string) =>
      Effect.runPromise(Context.get(context, RateLimiter).consume({ key, limit: 1, windowMs: 60_000 }))
    return Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const other = limiterOf(yield* Layer.build(rateLimiterLayer(settings)))
          const count = limiterOf(yield* Layer.build(rateLimiterLayer(settings)))
          yield* Effect.promise(() => other("ip:shared"))
          // Loads the script, so the stalled count is one command.
          yield* Effect.promise(() => count("ip:warm-up"))
          const stalled = count("ip:shared")
          blockThreadFor(800)
          return (yield* Effect.promise(() => stalled)).allowed
        })
      )
    )
  }

  it("is how long a count waits on Redis: past it the count is made in this instance's memory", async () => {
    expect(await allowedThroughStall(5_000)).toBe(false)
    expect(await allowedThroughStall(500)).toBe(true)
  })
})
