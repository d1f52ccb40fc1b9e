import type { TestServer } from "@talab/testkit"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Client, client, newPhone, type Response, type SignedIn, signIn, startServer } from "../support/harness.js"
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis
} from "../support/private-services.js"

/*
 * Dependencies going away and coming back, on a PostgreSQL and a Redis of this file's own (stopped and started
 * by PID): calls that need the database answer 503 SERVICE_UNAVAILABLE with Retry-After, never 500; the push
 * dispatcher logs the outage once when it starts and once when it ends; everything recovers by itself.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const eventually = async <A>(attempt: () => Promise<A | undefined>, timeoutMs: number): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const result = await attempt()
    if (result !== undefined) return result
    await sleep(100)
  }
  throw new Error(`not within ${timeoutMs} ms`)
}

describe("PostgreSQL stopped and started again", () => {
  let postgres: PrivatePostgres
  let server: TestServer
  let api: Client
  let user: SignedIn
  beforeAll(async () => {
    postgres = await startPrivatePostgres()
    server = await startServer({ databaseUrl: postgres.url })
    api = client(server)
    user = await signIn(server, api)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await postgres?.remove()
  }, 60_000)

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After while it is down, logs the outage once, and recovers", async () => {
    const stoppedAt = new Date()
    await postgres.stop()

    const calls: ReadonlyArray<[string, () => Promise<Response>]> = [
      ["GET /users/me", () => api.get("/users/me", { token: user.token })],
      ["PUT /users/me", () => api.put("/users/me", { token: user.token, body: { name: "Never Stored" } })],
      ["GET /requests", () => api.get("/requests", { token: user.token })],
      ["POST /auth/request-otp", () => api.post("/auth/request-otp", { body: { phone_number: newPhone() } })],
      [
        "POST /auth/refresh (ar)",
        () =>
          api.post("/auth/refresh", {
            body: { refresh_token: user.refreshToken },
            headers: { "accept-language": "ar" }
          })
      ]
    ]
    for (const [name, call] of calls) {
      const response = await call()
      expect({ name, status: response.status, code: response.body?.error?.code }).toEqual({
        name,
        status: 503,
        code: "SERVICE_UNAVAILABLE"
      })
      expect(response.body.success).toBe(false)
      expect(response.headers.get("retry-after")).toBe("5")
    }
    const arabic = await calls[4]![1]()
    expect(arabic.body.error.message).toBe("الخدمة غير متاحة مؤقتاً، حاول لاحقاً")
    expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(503)
    expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200)

    // Three expiry passes fail (moving the clock wakes the job), and the dispatcher, polling every 250 ms, fails
    // many rounds in these seconds: each outage is logged once, and nothing logs an error.
    const expiryPaused = () =>
      server.logs.lines.filter((line) => line.at >= stoppedAt && line.message.startsWith("Expiry paused"))
    for (let pass = 0; pass < 3; pass++) {
      server.clock.advance(1_000)
      await eventually(async () => (expiryPaused().length > 0 ? true : undefined), 20_000)
      await sleep(300)
    }
    await sleep(2_000)
    const during = server.logs.lines.filter((line) => line.at >= stoppedAt)
    expect(during.filter((line) => line.message.startsWith("Push dispatch paused"))).toHaveLength(1)
    expect(expiryPaused()).toHaveLength(1)
    expect(during.filter((line) => line.level === "ERROR").map((line) => line.message)).toEqual([])

    await postgres.start()
    const me = await eventually(async () => {
      const response = await api.get("/users/me", { token: user.token })
      return response.status === 200 ? response : undefined
    }, 30_000)
    expect(me.body.data.id).toBe(user.userId)
    const renamed = await api.put("/users/me", { token: user.token, body: { name: "After The Outage" } })
    expect(renamed.status).toBe(200)
    expect((await api.get("/users/me", { token: user.token })).body.data.name).toBe("After The Outage")
    expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200)
    await eventually(
      async () => (server.logs.lines.some((line) => line.message === "Push dispatch resumed") ? true : undefined),
      40_000
    )
    server.clock.advance(1_000)
    await eventually(
      async () => (server.logs.lines.some((line) => line.message === "Expiry resumed") ? true : undefined),
      20_000
    )
    const after = server.logs.lines.filter((line) => line.at >= stoppedAt)
    expect(after.filter((line) => line.message.startsWith("Push dispatch paused"))).toHaveLength(1)
    expect(after.filter((line) => line.message === "Push dispatch resumed")).toHaveLength(1)
    expect(after.filter((line) => line.message.startsWith("Expiry paused"))).toHaveLength(1)
    const resumed = after.filter((line) => line.message === "Expiry resumed")
    expect(resumed).toHaveLength(1)
    expect(Number(resumed[0]!.annotations.failed_passes)).toBeGreaterThanOrEqual(3)
  }, 120_000)
})

describe("Redis stopped and started again", () => {
  let redis: PrivateRedis
  let server: TestServer
  let api: Client
  let user: SignedIn
  beforeAll(async () => {
    redis = await startPrivateRedis()
    server = await startServer({ redisUrl: redis.url })
    api = client(server)
    user = await signIn(server, api)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await redis?.stop()
  }, 60_000)

  it("never answers 5xx while it is down, and recovers by itself", async () => {
    await redis.stop()
    const during = [
      await api.get("/users/me", { token: user.token }),
      await api.put("/users/me", { token: user.token, body: { name: "During Redis Outage" } }),
      await api.get("/requests", { token: user.token })
    ]
    expect(during.map((response) => response.status)).toEqual([200, 200, 200])
    expect((during[1] as Response).body.data.name).toBe("During Redis Outage")

    await redis.start()
    await eventually(async () => {
      const response = await api.get("/users/me", { token: user.token })
      return response.status === 200 ? response : undefined
    }, 30_000)
  }, 120_000)

  it("listens again on every channel the instances share once Redis is back (sessions, user events, evictions, reads)", async () => {
    // The shared channels, and the instance's own channel for confirmations of its session ends and user changes.
    const ws = server.redisChannelPrefix
    const fixed = [`${ws}confirm:*`, `${ws}evict`, `${ws}reads`, `${ws}sessions`, `${ws}user-changes`, `${ws}users`]
    const listened = async () => {
      const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 })
      try {
        await probe.connect()
        const channels = (await probe.pubsub("CHANNELS", `${ws}*`)) as Array<string>
        return [
          ...new Set(channels.map((channel) => (channel.startsWith(`${ws}confirm:`) ? `${ws}confirm:*` : channel)))
        ].sort()
      } catch {
        return []
      } finally {
        probe.disconnect()
      }
    }
    // The fan-out resubscribes on its own once its connection is ready again (the test before this one
    // stopped Redis too); SUBSCRIBE names all its channels in one command, so one listed means all are.
    const listening = () =>
      eventually(async () => {
        const channels = await listened()
        return channels.includes(`${ws}sessions`) ? channels : undefined
      }, 30_000)
    expect(await listening()).toEqual(fixed)

    await redis.stop()
    await redis.start()
    expect(await listening()).toEqual(fixed)
  }, 120_000)
})
