import { runCli } from "@talab/http-server"
import type { TestServer } from "@talab/testkit"
import { Effect } from "effect"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, relaxedLimits, signIn } from "../support/harness.js"
import { claimsOf } from "../support/jwt.js"
import { privateRedis } from "../support/redis-server.js"
import { useTwoInstances } from "../support/two-instances.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/**
 * The session cache (auth/SessionCache.ts) on two instances sharing PostgreSQL and Redis: each instance has
 * just read the caller's session (so it holds it), then a change made through the other, or by `talab`
 * from outside, is seen by the very next request. Each case runs several rounds so an announcement that
 * arrived after the next request would show.
 */
describe("session cache across two instances sharing Redis and PostgreSQL", () => {
  const cluster = useTwoInstances({ redisUrl: REDIS_URL, settings: relaxedLimits })
  const rounds = 5

  const me = (server: TestServer, token: string) => client(server).get("/users/me", { token })

  it("a logout through one instance is refused by the other at once", async () => {
    const { a, b } = cluster
    for (let round = 0; round < rounds; round++) {
      const user = await signIn(a, client(a))
      expect((await me(b, user.token)).status).toBe(200)
      expect((await me(a, user.token)).status).toBe(200)
      expect((await client(a).post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
      expect((await me(b, user.token)).status).toBe(401)
      expect((await me(a, user.token)).status).toBe(401)
    }
  })

  it("a session ended from another device through one instance is refused by the other at once", async () => {
    const { a, b } = cluster
    for (let round = 0; round < rounds; round++) {
      const phone = (await signIn(a, client(a))).phone
      const old = await signIn(a, client(a), phone)
      const current = await signIn(a, client(a), phone)
      expect((await me(b, old.token)).status).toBe(200)
      const ended = await client(a).delete(`/auth/sessions/${claimsOf(old.token).sid}`, { token: current.token })
      expect(ended.status).toBe(200)
      expect((await me(b, old.token)).status).toBe(401)
      expect((await me(b, current.token)).status).toBe(200)
    }
  })

  it("a profile change through one instance is what the other shows next", async () => {
    const { a, b } = cluster
    const user = await signIn(a, client(a))
    for (let round = 0; round < rounds; round++) {
      expect((await me(b, user.token)).status).toBe(200)
      const name = `Name ${round}`
      const language = round % 2 === 0 ? "en" : "ar"
      expect((await client(a).put("/users/me", { token: user.token, body: { name, language } })).status).toBe(200)
      const shown = await me(b, user.token)
      expect(shown.body.data).toMatchObject({ name, language })
    }
  })

  it("talab admin grant and revoke, run outside both, change what each answers next", async () => {
    const { a, b, database } = cluster
    const user = await signIn(a, client(a))
    const env = { DATABASE_URL: database.url, REDIS_URL }
    for (let round = 0; round < 2; round++) {
      for (const server of [a, b])
        expect((await client(server).get("/admin/reports", { token: user.token })).status).toBe(403)
      expect((await Effect.runPromise(runCli(["admin", "grant", user.phone], env))).code).toBe(0)
      for (const server of [a, b])
        expect((await client(server).get("/admin/reports", { token: user.token })).status).toBe(200)
      expect((await Effect.runPromise(runCli(["admin", "revoke", user.phone], env))).code).toBe(0)
    }
  })

  it("answers a logout only once every instance has confirmed it forgot the session", async () => {
    const { a, b } = cluster
    // A third instance, slow to apply: it confirms the session end 300 ms after hearing it.
    const slow = new Redis(REDIS_URL)
    const publisher = new Redis(REDIS_URL)
    let confirmedAt: number | undefined
    slow.on("message", (_channel: string, payload: string) => {
      const [, , reply] = payload.split("\n")
      const [replyChannel, token] = (reply ?? "").split(" ")
      setTimeout(() => {
        confirmedAt = Date.now()
        publisher.publish(replyChannel!, token!).catch(() => {})
      }, 300)
    })
    await slow.subscribe(`${a.redisChannelPrefix}sessions`)
    try {
      const user = await signIn(a, client(a))
      expect((await me(b, user.token)).status).toBe(200)
      expect((await client(a).post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
      const answeredAt = Date.now()
      expect(confirmedAt).toBeDefined()
      expect(answeredAt).toBeGreaterThanOrEqual(confirmedAt!)
      expect((await me(b, user.token)).status).toBe(401)
    } finally {
      slow.disconnect()
      publisher.disconnect()
    }
  })

  it("talab sessions revoke, run outside both, is refused by each at once", async () => {
    const { a, b, database } = cluster
    const user = await signIn(a, client(a))
    for (const server of [a, b]) expect((await me(server, user.token)).status).toBe(200)
    const outcome = await Effect.runPromise(
      runCli(["sessions", "revoke", user.phone], { DATABASE_URL: database.url, REDIS_URL })
    )
    expect(outcome).toMatchObject({ code: 0, stdout: [`revoked 1 session of ${user.phone}`] })
    for (const server of [a, b]) expect((await me(server, user.token)).status).toBe(401)
  })
})

/**
 * While the Redis that carries the changes is away, an instance cannot hear them: its session cache keeps
 * nothing, so a logout through the other instance (whose announcement is lost) still reaches it at once.
 */
describe("session cache while the shared Redis is down", () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>
  beforeAll(async () => {
    redis = await privateRedis()
  })
  afterAll(async () => {
    await redis?.dispose()
  })
  const cluster = useTwoInstances({
    get redisUrl() {
      return redis.url
    },
    settings: relaxedLimits
  })

  it("reads every session from the database, so a logout whose announcement was lost is refused at once", async () => {
    const { a, b } = cluster
    const user = await signIn(a, client(a))
    expect((await client(b).get("/users/me", { token: user.token })).status).toBe(200)
    await redis.stop()
    const deadline = Date.now() + 10_000
    while (!b.logs.lines.some((line) => line.message === "Realtime: Redis subscriber connection error")) {
      if (Date.now() > deadline) throw new Error("the instance did not notice Redis going away")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect((await client(a).post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
    expect((await client(b).get("/users/me", { token: user.token })).status).toBe(401)
  })
})
