import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChildServer, freePort, lastCodeInOutbox, startServer, waitUntilLive } from "../support/child-server.js"
import { eventually } from "../support/eventually.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { privateRedis } from "../support/redis-server.js"

/*
 * Two deployments (two databases) on one Redis, each with the default REDIS_PREFIX: deployment A runs two
 * instances, B one, all real servers (src/main.ts). Pub/sub ignores Redis's database numbers, so only the names
 * keep them apart: each listens on its own channels, a logout on one is announced to its own instances only,
 * and each counts its own rate limits.
 */

const AUTH_LIMIT = 6
const folder = mkdtempSync(join(tmpdir(), "talab-deployments-"))
let phones = 0
const newPhone = () => `+96656${String(process.pid % 1000).padStart(3, "0")}${String(phones++).padStart(4, "0")}`

interface Instance {
  readonly server: ChildServer
  readonly url: string
  readonly outbox: string
}

const post = (instance: Instance, path: string, body: unknown, token?: string) =>
  fetch(`${instance.url}/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body)
  })

const signIn = async (instance: Instance) => {
  const phone = newPhone()
  expect((await post(instance, "/auth/request-otp", { phone_number: phone })).status).toBe(200)
  const verified = await post(instance, "/auth/verify-otp", {
    phone_number: phone,
    otp_code: lastCodeInOutbox(instance.outbox, phone)
  })
  expect(verified.status).toBe(200)
  return ((await verified.json()) as { data: { tokens: { access_token: string } } }).data.tokens.access_token
}

describe("two deployments on one Redis", () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>
  const databases: Array<Awaited<ReturnType<typeof createPostgresDatabase>>> = []
  const instances: Array<Instance> = []
  let probe: Redis
  const heard: Array<string> = []

  const start = async (databaseUrl: string, name: string): Promise<Instance> => {
    const port = await freePort()
    const outbox = join(folder, `${name}.sms.jsonl`)
    const server = startServer({
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      JWT_SECRET: `two-deployments-test-secret-${name.slice(0, 1)}-of-32-bytes`,
      SMS_OUTBOX_FILE: outbox,
      RATE_LIMIT_AUTH_PER_MINUTE: String(AUTH_LIMIT)
    })
    await waitUntilLive(port, server)
    return { server, url: `http://127.0.0.1:${port}`, outbox }
  }

  beforeAll(async () => {
    redis = await privateRedis()
    databases.push(await createPostgresDatabase(), await createPostgresDatabase())
    const [a, b] = databases
    instances.push(...(await Promise.all([start(a!.url, "a1"), start(a!.url, "a2"), start(b!.url, "b1")])))
    probe = new Redis(redis.url)
    probe.on("pmessage", (_pattern: string, channel: string) => heard.push(channel))
    await probe.psubscribe("*")
  }, 180_000)

  afterAll(async () => {
    probe?.disconnect()
    for (const { server } of instances) {
      if (server.child.exitCode === null) server.child.kill("SIGTERM")
      await server.exited
    }
    for (const database of databases) await database.drop()
    await redis?.dispose()
    rmSync(folder, { recursive: true, force: true })
  }, 60_000)

  /** The session channels listened on, with their listeners: one name per deployment. */
  const sessionChannels = async () => {
    const client = new Redis(redis.url)
    try {
      const names = ((await client.pubsub("CHANNELS", "*")) as Array<string>).filter((name) =>
        name.endsWith(":ws:sessions")
      )
      const counts = (await client.pubsub("NUMSUB", ...names)) as Array<string | number>
      return Object.fromEntries(names.map((name, i) => [name, Number(counts[2 * i + 1])]))
    } finally {
      client.disconnect()
    }
  }

  it("listens on channels of its own: two listeners on A's, one on B's", async () => {
    const channels = await sessionChannels()
    expect(Object.values(channels).sort()).toEqual([1, 2])
    for (const name of Object.keys(channels)) expect(name).toMatch(/^talab:[0-9a-f]{12}:ws:sessions$/)
  })

  it("announces a logout to its own instances only", async () => {
    const channels = await sessionChannels()
    const ownChannelOf = (listeners: number) => Object.keys(channels).find((name) => channels[name] === listeners)!
    const [a1, , b1] = instances as [Instance, Instance, Instance]
    for (const [instance, own, other] of [
      [a1, ownChannelOf(2), ownChannelOf(1)],
      [b1, ownChannelOf(1), ownChannelOf(2)]
    ] as const) {
      const token = await signIn(instance)
      heard.length = 0
      expect((await post(instance, "/auth/logout", {}, token)).status).toBe(200)
      await eventually(() => (heard.includes(own) ? true : undefined), `the logout on ${own}`)
      const otherPrefix = other.replace(/sessions$/, "")
      expect(heard.filter((channel) => channel.startsWith(otherPrefix))).toEqual([])
    }
  })

  it("counts rate limits per deployment: shared by A's instances, apart from B's", async () => {
    const [a1, a2, b1] = instances as [Instance, Instance, Instance]
    // Each deployment has had 3 auth calls from this address (a sign-in and a logout); A spends the rest of its own.
    for (let i = 3; i < AUTH_LIMIT; i++)
      expect((await post(a1, "/auth/request-otp", { phone_number: newPhone() })).status).toBe(200)
    expect((await post(a2, "/auth/request-otp", { phone_number: newPhone() })).status).toBe(429)
    expect((await post(b1, "/auth/request-otp", { phone_number: newPhone() })).status).toBe(200)
  })
})
