import type { TestServer } from "@talab/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../support/fixtures.js"
import {
  backends,
  client,
  newPhone,
  type Response,
  signInOverHttp,
  startServer,
  useServer
} from "../support/harness.js"

const MINUTE = 60_000
const json = { "content-type": "application/json" }
const defaults = {
  authPerMinute: 10,
  otpPer10Minutes: 3,
  apiPerMinute: 100,
  wsMessagesPerMinute: 50,
  wsHandshakesPerMinute: 60
}

let ipCounter = 0
/** A client address of its own, so each test has a fresh per-IP budget (the server trusts the proxy). */
const newIp = () => `203.0.113.${++ipCounter}`
const from = (ip: string) => ({ "x-forwarded-for": ip })

const limitHeaders = (response: Response) => ({
  limit: response.headers.get("ratelimit-limit"),
  remaining: response.headers.get("ratelimit-remaining"),
  reset: response.headers.get("ratelimit-reset")
})

/** A 429 RATE_LIMITED with Retry-After and the three RateLimit-* headers of the limit that refused it. */
const expectRateLimited = (response: Response, limit: number, maxWaitSeconds: number) => {
  expectError(response, 429, "RATE_LIMITED")
  const retryAfter = Number(response.headers.get("retry-after"))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(maxWaitSeconds)
  const headers = limitHeaders(response)
  expect({ limit: headers.limit, remaining: headers.remaining }).toEqual({ limit: String(limit), remaining: "0" })
  expect(Number(headers.reset)).toBeGreaterThan(0)
  expect(Number(headers.reset)).toBeLessThanOrEqual(maxWaitSeconds)
}

describe.each(backends)("rate limits (spec defaults) on %s", (backend) => {
  const server = useServer(backend, { settings: { rateLimits: defaults, trustProxy: true } })
  const api = () => client(server())
  const requestOtp = (phone: string, ip: string) =>
    api().post("/auth/request-otp", { body: { phone_number: phone }, headers: from(ip) })

  describe("auth: 10 per minute per IP on /auth/*", () => {
    it("counts every /auth/* call, logout and refused ones included, and refuses the 11th with 429", async () => {
      const ip = newIp()
      const signedIn = await signInOverHttp(server(), client(server()), newPhone()) // from another address
      const calls = [
        // A valid number would show its own, tighter budget of 3 codes; a fixed line is refused before that.
        () => requestOtp("+966112345678", ip),
        () =>
          api().post("/auth/verify-otp", { body: { phone_number: newPhone(), otp_code: "123456" }, headers: from(ip) }),
        () => api().post("/auth/refresh", { body: { refresh_token: "nope" }, headers: from(ip) }),
        () => api().raw.post("/auth/request-otp", { rawBody: "{", headers: { ...json, ...from(ip) } }),
        () => api().post("/auth/logout", { token: "bad", headers: from(ip) })
      ]
      const remaining: Array<string | null> = []
      for (let i = 0; i < 10; i++) {
        const response = await calls[i % calls.length]!()
        expect(response.status).not.toBe(429)
        expect(limitHeaders(response).limit).toBe("10")
        remaining.push(limitHeaders(response).remaining)
      }
      expect(remaining).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"])
      expectRateLimited(await requestOtp(newPhone(), ip), 10, 60)
      expectRateLimited(await api().post("/auth/logout", { token: signedIn.token, headers: from(ip) }), 10, 60)
      // The logout was refused, so the session it named is still live.
      expect((await api().get("/users/me", { token: signedIn.token })).status).toBe(200)
    })

    it("lets the address in again once the minute has passed, and never limits another address", async () => {
      const ip = newIp()
      for (let i = 0; i < 10; i++)
        await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })
      expect((await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })).status).toBe(429)
      expect((await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(newIp()) })).status).toBe(
        401
      )
      server().clock.advance(MINUTE)
      const again = await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })
      expectError(again, 401, "INVALID_REFRESH_TOKEN")
      expect(limitHeaders(again).remaining).toBe("9")
    })

    it("answers 429 before anything else: before 401, before 400, and sends no code", async () => {
      const ip = newIp()
      for (let i = 0; i < 10; i++)
        await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })
      const sentBefore = server().sms.sent.length
      expectRateLimited(
        await api().raw.post("/auth/request-otp", { rawBody: "not json", headers: { ...json, ...from(ip) } }),
        10,
        60
      )
      expectRateLimited(
        await api().post("/auth/verify-otp", { body: { phone_number: newPhone(), otp_code: "1" }, headers: from(ip) }),
        10,
        60
      )
      expectRateLimited(await api().post("/auth/logout", { headers: from(ip) }), 10, 60)
      expectRateLimited(await requestOtp(newPhone(), ip), 10, 60)
      expect(server().sms.sent.length).toBe(sentBefore)
    })

    it("sends the 429 with CORS and request-id headers, so a browser can read it", async () => {
      const ip = newIp()
      for (let i = 0; i < 10; i++)
        await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })
      const refused = await api().post("/auth/refresh", {
        body: { refresh_token: "x" },
        headers: { ...from(ip), origin: "https://app.example", "x-request-id": "limited-1" }
      })
      expectRateLimited(refused, 10, 60)
      expect(refused.headers.get("access-control-allow-origin")).toBe("*")
      expect(refused.headers.get("x-request-id")).toBe("limited-1")
    })

    it("counts logout on the auth limit per IP, not on the user's API limit", async () => {
      const me = await signInOverHttp(server(), api())
      const logout = await api().post("/auth/logout", { token: me.token, headers: from(newIp()) })
      expect(logout.status).toBe(200)
      expect(limitHeaders(logout)).toMatchObject({ limit: "10", remaining: "9" })
    })

    it("does not count calls outside /auth/*", async () => {
      const ip = newIp()
      for (let i = 0; i < 12; i++) {
        const response = await fetch(`${server().baseUrl}/health/live`, { headers: from(ip) })
        expect(response.status).toBe(200)
        expect(response.headers.get("ratelimit-limit")).toBeNull()
      }
      const counted = await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) })
      expect(limitHeaders(counted).remaining).toBe("9")
    })
  })

  describe("OTP: 3 codes per 10 minutes per phone number", () => {
    it("refuses the 4th code with 429 and sends no SMS; 10 minutes later it sends again", async () => {
      const phone = newPhone()
      for (let i = 0; i < 3; i++) {
        const response = await requestOtp(phone, newIp())
        expect(response.status).toBe(200)
        expect(limitHeaders(response)).toMatchObject({ limit: "3", remaining: String(2 - i) })
      }
      const sentBefore = server().sms.sent.length
      expectRateLimited(await requestOtp(phone, newIp()), 3, 600)
      expect(server().sms.sent.length).toBe(sentBefore)
      expect((await requestOtp(newPhone(), newIp())).status).toBe(200)
      server().clock.advance(10 * MINUTE)
      expect((await requestOtp(phone, newIp())).status).toBe(200)
      expect(server().sms.sent.length).toBe(sentBefore + 2)
    })

    it("counts one number however it is written", async () => {
      const phone = newPhone()
      const spaced = `${phone.slice(0, 4)} ${phone.slice(4, 6)} ${phone.slice(6)}`
      const dashed = `${phone.slice(0, 6)}-${phone.slice(6)}`
      for (const written of [phone, spaced, dashed]) expect((await requestOtp(written, newIp())).status).toBe(200)
      expectRateLimited(await requestOtp(spaced, newIp()), 3, 600)
    })

    it("does not count refused numbers against the per-number budget", async () => {
      const ip = newIp()
      for (let i = 0; i < 3; i++) expect((await requestOtp("+966112345678", ip)).status).toBe(400)
      expect((await requestOtp(newPhone(), ip)).status).toBe(200)
    })

    it("leaves a code already sent usable after the limit refused another", async () => {
      const phone = newPhone()
      for (let i = 0; i < 3; i++) await requestOtp(phone, newIp())
      const code = server().sms.lastCode(phone)!
      expect((await requestOtp(phone, newIp())).status).toBe(429)
      const verified = await api().post("/auth/verify-otp", {
        body: { phone_number: phone, otp_code: code },
        headers: from(newIp())
      })
      expect(verified.status).toBe(200)
    })
  })

  describe("per network: an IPv6 client is its /64, an IPv4-mapped address is the IPv4 one", () => {
    let networkCounter = 0
    /** A /64 of its own; `at(i)` is its i-th address, each written differently. */
    const newNetwork = () => {
      networkCounter += 1
      const prefix = `2001:db8:${networkCounter.toString(16)}:${(networkCounter * 7).toString(16)}`
      return (i: number) =>
        `${prefix}:${((i * 4099) % 65_536).toString(16)}:${i.toString(16)}:0:${(i + 1).toString(16)}`
    }

    it("40 addresses of one /64 share the 10 codes a minute one address gets; another /64 has its own", async () => {
      const at = newNetwork()
      const sentBefore = server().sms.sent.length
      const statuses: Array<number> = []
      for (let i = 0; i < 40; i++) statuses.push((await requestOtp(newPhone(), at(i))).status)
      expect(statuses.filter((status) => status === 200)).toHaveLength(10)
      expect(statuses.slice(10)).toEqual(new Array(30).fill(429))
      expect(server().sms.sent.length - sentBefore).toBe(10)
      expectRateLimited(await requestOtp(newPhone(), at(99)), 10, 60)
      expect((await requestOtp(newPhone(), newNetwork()(0))).status).toBe(200)
    })

    it("counts 203.0.113.x and ::ffff:203.0.113.x as one address", async () => {
      const ip = newIp()
      for (let i = 0; i < 10; i++) {
        const written = i % 2 === 0 ? ip : `::ffff:${ip}`
        const response = await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(written) })
        expect(limitHeaders(response).remaining).toBe(String(9 - i))
      }
      expectRateLimited(
        await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(`::FFFF:${ip}`) }),
        10,
        60
      )
      expectRateLimited(await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(ip) }), 10, 60)
    })

    it("scopes /auth/* idempotency keys to the /64: another address of it gets the replay, another /64 does not", async () => {
      const at = newNetwork()
      const key = crypto.randomUUID()
      const send = (address: string, phone: string) =>
        api().post("/auth/request-otp", {
          body: { phone_number: phone },
          headers: { ...from(address), "idempotency-key": key }
        })
      const phone = newPhone()
      const first = await send(at(1), phone)
      expect(first.status).toBe(200)
      const sameNetwork = await send(at(2), phone)
      expect(sameNetwork.headers.get("idempotent-replayed")).toBe("true")
      const elsewhere = await send(newNetwork()(1), phone)
      expect(elsewhere.status).toBe(200)
      expect(elsewhere.headers.get("idempotent-replayed")).toBeNull()
    })
  })

  describe("TRUST_PROXY", () => {
    it("keys the auth limit on the hop the proxy appended, not on what the client wrote before it", async () => {
      const proxySaw = newIp()
      for (let i = 0; i < 10; i++) {
        const spoofed = { "x-forwarded-for": `198.51.100.${i}, ${proxySaw}` }
        expect((await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: spoofed })).status).toBe(401)
      }
      const again = await api().post("/auth/refresh", {
        body: { refresh_token: "x" },
        headers: { "x-forwarded-for": `198.51.100.99, ${proxySaw}` }
      })
      expect(again.status).toBe(429)
    })
  })
})

describe.each(backends)("rate limits without a trusted proxy on %s", (backend) => {
  const server = useServer(backend, { settings: { rateLimits: defaults, trustProxy: false } })
  const api = () => client(server())

  it("ignores X-Forwarded-For: every call from this socket shares one budget", async () => {
    for (let i = 0; i < 10; i++) {
      const response = await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(newIp()) })
      expect(response.status).toBe(401)
    }
    expectRateLimited(
      await api().post("/auth/refresh", { body: { refresh_token: "x" }, headers: from(newIp()) }),
      10,
      60
    )
  })
})

describe.each(backends)("API limit per user (lowered to 5 per minute) on %s", (backend) => {
  const server = useServer(backend, {
    settings: { rateLimits: { ...defaults, authPerMinute: 10_000, apiPerMinute: 5 }, trustProxy: false }
  })
  const api = () => client(server())

  it("counts every authenticated call of a user and refuses the 6th with 429; others are not affected", async () => {
    const me = await signInOverHttp(server(), api())
    const other = await signInOverHttp(server(), api())
    const seen: Array<ReturnType<typeof limitHeaders>> = []
    const calls = [
      () => api().get("/users/me", { token: me.token }),
      () => api().put("/users/me", { token: me.token, body: { name: "x".repeat(101) } }),
      () =>
        api().post("/device-tokens", {
          token: me.token,
          body: { platform: "ios", push_token: `t-${crypto.randomUUID()}` }
        }),
      () => api().put("/users/me", { token: me.token, body: { name: "Counted" } }),
      () => api().get("/users/me", { token: me.token })
    ]
    const statuses: Array<number> = []
    for (const call of calls) {
      const response = await call()
      statuses.push(response.status)
      seen.push(limitHeaders(response))
    }
    expect(statuses).toEqual([200, 400, 201, 200, 200])
    expect(seen.map((h) => h.limit)).toEqual(["5", "5", "5", "5", "5"])
    expect(seen.map((h) => h.remaining)).toEqual(["4", "3", "2", "1", "0"])
    for (const h of seen) expect(Number(h.reset)).toBeGreaterThan(0)
    expectRateLimited(await api().get("/users/me", { token: me.token }), 5, 60)
    expect((await api().get("/users/me", { token: other.token })).status).toBe(200)
  })

  it("answers 429 before 400, and a refused write changes nothing", async () => {
    const me = await signInOverHttp(server(), api())
    for (let i = 0; i < 5; i++) await api().get("/users/me", { token: me.token })
    expectRateLimited(await api().raw.put("/users/me", { token: me.token, rawBody: "{", headers: json }), 5, 60)
    expectRateLimited(await api().put("/users/me", { token: me.token, body: { name: "Sneaky" } }), 5, 60)
    server().clock.advance(MINUTE)
    expect((await api().get("/users/me", { token: me.token })).body.data.name).toBeNull()
  })

  it("answers 401 to a bad token whatever the budget, and does not count it", async () => {
    const me = await signInOverHttp(server(), api())
    for (let i = 0; i < 3; i++)
      expectError(await api().get("/users/me", { token: `${me.token}x` }), 401, "UNAUTHORIZED")
    expect(limitHeaders(await api().get("/users/me", { token: me.token })).remaining).toBe("4")
  })

  it("lets the user in again once the minute has passed", async () => {
    const me = await signInOverHttp(server(), api())
    for (let i = 0; i < 5; i++) await api().get("/users/me", { token: me.token })
    expect((await api().get("/users/me", { token: me.token })).status).toBe(429)
    server().clock.advance(MINUTE)
    const again = await api().get("/users/me", { token: me.token })
    expect(again.status).toBe(200)
    expect(limitHeaders(again).remaining).toBe("4")
  })

  it("shares one budget among the sessions of a user", async () => {
    const first = await signInOverHttp(server(), api())
    const second = await signInOverHttp(server(), api(), first.phone)
    for (let i = 0; i < 5; i++) await api().get("/users/me", { token: i % 2 === 0 ? first.token : second.token })
    expect((await api().get("/users/me", { token: second.token })).status).toBe(429)
  })

  it("does not count the auth endpoints on the user's budget", async () => {
    const me = await signInOverHttp(server(), api())
    for (let i = 0; i < 6; i++)
      expect((await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })).status).toBe(200)
    expect(limitHeaders(await api().get("/users/me", { token: me.token })).remaining).toBe("4")
  })
})

describe("rate limits shared through Redis", () => {
  const redisUrl = process.env.TALAB_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
  const prefix = `talab-e2e:${crypto.randomUUID()}:`
  const settings = { rateLimits: { ...defaults, authPerMinute: 4 } }
  let first: TestServer
  let second: TestServer
  let apart: TestServer
  beforeAll(async () => {
    first = await startServer({ settings, redisUrl, redisPrefix: prefix })
    second = await startServer({ settings, redisUrl, redisPrefix: prefix })
    apart = await startServer({ settings, redisUrl })
  }, 60_000)
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close(), apart?.close()])
  })

  const refresh = (server: TestServer) => client(server).post("/auth/refresh", { body: { refresh_token: "x" } })

  it("two instances on one Redis share one budget per client", async () => {
    const remaining: Array<string | null> = []
    for (const server of [first, second, first, second]) {
      const response = await refresh(server)
      expect(response.status).toBe(401)
      remaining.push(response.headers.get("ratelimit-remaining"))
    }
    expect(remaining).toEqual(["3", "2", "1", "0"])
    expectRateLimited(await refresh(first), 4, 60)
    expectRateLimited(await refresh(second), 4, 60)
  })

  it("an instance under another prefix keeps its own budget", async () => {
    expect(apart.redisPrefix).not.toBe(prefix)
    expect((await refresh(apart)).status).toBe(401)
  })

  it("shares the OTP budget of a phone number too", async () => {
    const phone = newPhone()
    const phoneSettings = { rateLimits: { ...defaults, authPerMinute: 1000 } }
    const a = await startServer({ settings: phoneSettings, redisUrl, redisPrefix: `${prefix}otp:` })
    const b = await startServer({ settings: phoneSettings, redisUrl, redisPrefix: `${prefix}otp:` })
    try {
      for (const server of [a, b, a]) {
        expect((await client(server).post("/auth/request-otp", { body: { phone_number: phone } })).status).toBe(200)
      }
      expectRateLimited(await client(b).post("/auth/request-otp", { body: { phone_number: phone } }), 3, 600)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  }, 90_000) // it starts two servers of its own
})
