import type { TestServer } from "@talab/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_PHONE, expectError, Marketplace, marketSettings } from "../support/fixtures.js"
import { backends, client, startServer, useServer } from "../support/harness.js"

const PER_MINUTE = 5
const MINUTE = 60_000

let networkCounter = 0
/** A client network of its own (an IPv6 /64); called with `i`, its i-th address. The server trusts the proxy. */
const newNetwork = () => {
  networkCounter += 1
  return (i = 0) => `2001:db8:b22:${networkCounter.toString(16)}:${(i + 1).toString(16)}::1`
}

const get = (server: TestServer, path: string, address: string) =>
  fetch(`${server.baseUrl}${path}`, { headers: { "x-forwarded-for": address } })

const limitOf = (response: Response) => ({
  limit: response.headers.get("ratelimit-limit"),
  remaining: response.headers.get("ratelimit-remaining")
})

const expectRefused = async (response: Response) => {
  expect(response.status).toBe(429)
  expectError({ status: response.status, body: await response.json() }, 429, "RATE_LIMITED")
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  expect(Number(response.headers.get("retry-after"))).toBeLessThanOrEqual(60)
  expect(limitOf(response)).toEqual({ limit: String(PER_MINUTE), remaining: "0" })
}

const settings = { ...marketSettings, trustProxy: true, publicRoutesPerMinute: PER_MINUTE }

describe.each(backends)("public reads, 5 a minute per network, on %s", (backend) => {
  const server = useServer(backend, { settings })
  let profilePath = ""
  beforeAll(async () => {
    const m = new Marketplace(server(), client(server()), ADMIN_PHONE)
    profilePath = `/api/v1/seller-profiles/${(await m.approvedSeller()).profileId}`
  })

  it("counts a seller's profile, the OpenAPI and AsyncAPI documents, /docs and its script on one budget", async () => {
    const at = newNetwork()
    const paths = [profilePath, "/api/v1/openapi.json", "/api/v1/asyncapi.json", "/docs", "/docs/scalar.js"]
    const seen: Array<ReturnType<typeof limitOf>> = []
    for (const [i, path] of paths.entries()) {
      const response = await get(server(), path, at(i))
      expect(response.status).toBe(200)
      seen.push(limitOf(response))
    }
    expect(seen.map((headers) => headers.remaining)).toEqual(["4", "3", "2", "1", "0"])
    expect(seen.every((headers) => headers.limit === String(PER_MINUTE))).toBe(true)
    for (const path of paths) await expectRefused(await get(server(), path, at(9)))
  })

  it("counts the admin console's page and files on the same budget (none needs a token)", async () => {
    const at = newNetwork()
    const paths = ["/admin/", "/admin/assets/app.js", "/admin/assets/app.css", "/admin", "/admin/assets/missing.js"]
    const seen: Array<string | null> = []
    for (const [i, path] of paths.entries()) {
      const response = await fetch(`${server().baseUrl}${path}`, {
        headers: { "x-forwarded-for": at(i) },
        redirect: "manual"
      })
      expect(response.status).toBe(path === "/admin" ? 308 : path.endsWith("missing.js") ? 404 : 200)
      seen.push(limitOf(response).remaining)
    }
    expect(seen).toEqual(["4", "3", "2", "1", "0"])
    await expectRefused(await get(server(), "/admin/", at(9)))
  })

  it("lets another network in, and this one again a minute later", async () => {
    const at = newNetwork()
    for (let i = 0; i < PER_MINUTE; i++) expect((await get(server(), profilePath, at(i))).status).toBe(200)
    await expectRefused(await get(server(), profilePath, at()))
    expect((await get(server(), profilePath, newNetwork()())).status).toBe(200)
    server().clock.advance(MINUTE)
    expect((await get(server(), profilePath, at())).status).toBe(200)
  })

  it("counts an unknown profile id too (a probe costs like a read)", async () => {
    const at = newNetwork()
    for (let i = 0; i < PER_MINUTE; i++) {
      const response = await get(server(), "/api/v1/seller-profiles/00000000-0000-4000-8000-000000000000", at())
      expect(response.status).toBe(404)
    }
    await expectRefused(await get(server(), profilePath, at()))
  })

  it("does not count health or /auth/* (which has its own limit)", async () => {
    const at = newNetwork()
    for (let i = 0; i < PER_MINUTE + 2; i++) {
      const health = await get(server(), "/health/live", at())
      expect(health.status).toBe(200)
      expect(health.headers.get("ratelimit-limit")).toBeNull()
      const refresh = await fetch(`${server().apiUrl}/auth/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": at() },
        body: JSON.stringify({ refresh_token: "x" })
      })
      expect(refresh.status).toBe(401)
    }
    expect(limitOf(await get(server(), profilePath, at()))).toEqual({ limit: String(PER_MINUTE), remaining: "4" })
  })
})

describe("public reads shared through Redis", () => {
  const redisUrl = process.env.TALAB_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
  const prefix = `talab-e2e:${crypto.randomUUID()}:`
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    ;[first, second] = await Promise.all([
      startServer({ settings, redisUrl, redisPrefix: prefix }),
      startServer({ settings, redisUrl, redisPrefix: prefix })
    ])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()])
  })

  it("two instances share one network's budget", async () => {
    const at = newNetwork()
    for (let i = 0; i < PER_MINUTE; i++) {
      expect((await get(i % 2 === 0 ? first : second, "/api/v1/openapi.json", at(i))).status).toBe(200)
    }
    await expectRefused(await get(first, "/api/v1/openapi.json", at()))
    await expectRefused(await get(second, "/docs", at()))
  })
})
