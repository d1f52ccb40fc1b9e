import type { TestServer } from "@talab/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../support/fixtures.js"
import { backends, client, newPhone, signInOverHttp, startServer } from "../support/harness.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { privateRedis } from "../support/redis-server.js"

/*
 * Rate limits with Redis down: a Redis of the test's own is stopped mid-test. While it is down
 * each instance counts in its own memory, so OTP sends, verifications (per IP) and API calls stay limited; the
 * outage is logged once when it starts and once when it ends; after it, counting is back in Redis and what was
 * allowed during the outage still counts.
 */

const AUTH_PER_MINUTE = 30
const OTP_PER_10_MINUTES = 3
const API_PER_MINUTE = 5
const OUTAGE_STARTED = "Rate limiter: Redis unreachable, counting in this instance's memory until it is back"
const OUTAGE_ENDED = "Rate limiter: Redis reachable again, counting in Redis"

describe.each(backends)("rate limits while Redis is down on %s", (backend) => {
  let redis: Awaited<ReturnType<typeof privateRedis>>
  let database: { url: string; drop: () => Promise<void> } | undefined
  let server: TestServer

  beforeAll(async () => {
    redis = await privateRedis()
    if (backend === "postgres") database = await createPostgresDatabase()
    server = await startServer({
      redisUrl: redis.url,
      ...(database ? { databaseUrl: database.url } : {}),
      settings: {
        rateLimits: {
          authPerMinute: AUTH_PER_MINUTE,
          otpPer10Minutes: OTP_PER_10_MINUTES,
          apiPerMinute: API_PER_MINUTE,
          wsMessagesPerMinute: 50,
          wsHandshakesPerMinute: 1000
        }
      }
    })
  }, 60_000)

  afterAll(async () => {
    await server?.close()
    await database?.drop()
    await redis?.dispose()
  }, 60_000)

  /** Every call on /auth/* is counted here, since they all share the per-IP budget. */
  let authCalls = 0
  const requestOtp = (phone: string) => {
    authCalls++
    return client(server).post("/auth/request-otp", { body: { phone_number: phone } })
  }
  const verifyOtp = (phone: string, code: string) => {
    authCalls++
    return client(server).post("/auth/verify-otp", { body: { phone_number: phone, otp_code: code } })
  }
  const linesSaying = (message: string) => server.logs.lines.filter((line) => line.message === message)

  it("keeps every limit through the outage, logs it once each way, and counts in Redis again after it", async () => {
    const user = await signInOverHttp(server, client(server))
    authCalls += 2
    const early = newPhone()
    for (let i = 0; i < 2; i++) expect((await requestOtp(early)).status).toBe(200)

    await redis.stop()

    // The number that had two codes before the outage gets exactly one more.
    expect((await requestOtp(early)).status).toBe(200)
    expectError(await requestOtp(early), 429, "RATE_LIMITED")

    // A number first seen during the outage gets its three codes, then no more: not twelve.
    const fresh = newPhone()
    for (let i = 0; i < OTP_PER_10_MINUTES; i++) expect((await requestOtp(fresh)).status).toBe(200)
    for (let i = 0; i < 3; i++) {
      const refused = await requestOtp(fresh)
      expectError(refused, 429, "RATE_LIMITED")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    }

    // Verification attempts are counted in the database, with the code: three wrong guesses use them all up.
    for (let i = 0; i < 3; i++) expect((await verifyOtp(fresh, "000000")).status).toBe(401)
    expectError(await verifyOtp(fresh, server.sms.lastCode(fresh)!), 401, "OTP_ATTEMPTS_EXCEEDED")

    // The per-user API budget holds.
    for (let i = 0; i < API_PER_MINUTE; i++)
      expect((await client(server).get("/users/me", { token: user.token })).status).toBe(200)
    expectError(await client(server).get("/users/me", { token: user.token }), 429, "RATE_LIMITED")

    // The per-IP budget on /auth/* holds, counting the calls made before the outage.
    while (authCalls < AUTH_PER_MINUTE) expect((await requestOtp(newPhone())).status).toBe(200)
    expectError(await requestOtp(newPhone()), 429, "RATE_LIMITED")
    expect(server.sms.sent.filter((sms) => sms.to === fresh)).toHaveLength(OTP_PER_10_MINUTES)

    expect(linesSaying(OUTAGE_STARTED)).toHaveLength(1)
    expect(linesSaying(OUTAGE_STARTED)[0]!.level).toBe("WARN")
    expect(linesSaying(OUTAGE_ENDED)).toHaveLength(0)

    await redis.start()
    const deadline = Date.now() + 15_000
    while (linesSaying(OUTAGE_ENDED).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(linesSaying(OUTAGE_ENDED)).toHaveLength(1)

    // Redis came back empty, but what was allowed during the outage still counts.
    expectError(await requestOtp(fresh), 429, "RATE_LIMITED")

    // Once the windows have passed, everyone is allowed again, and counted in Redis.
    server.clock.advance("11 minutes")
    authCalls = 0
    expect((await requestOtp(fresh)).status).toBe(200)
    const after = newPhone()
    for (let i = 0; i < OTP_PER_10_MINUTES; i++) expect((await requestOtp(after)).status).toBe(200)
    expectError(await requestOtp(after), 429, "RATE_LIMITED")
    expect(linesSaying(OUTAGE_STARTED)).toHaveLength(1)
    expect(linesSaying(OUTAGE_ENDED)).toHaveLength(1)
  }, 60_000)

  // Once is enough: the database plays no part, and a second embedded one is slow to start.
  it.runIf(backend === "postgres")(
    "shares one budget through Redis again: a second instance sees the first one's calls",
    async () => {
      const second = await startServer({
        redisUrl: redis.url,
        ...(server.redisPrefix ? { redisPrefix: server.redisPrefix } : {}),
        ...(database ? { databaseUrl: database.url } : {}),
        settings: {
          rateLimits: {
            authPerMinute: 1000,
            otpPer10Minutes: OTP_PER_10_MINUTES,
            apiPerMinute: 1000,
            wsMessagesPerMinute: 50,
            wsHandshakesPerMinute: 1000
          }
        }
      })
      try {
        second.clock.advance("11 minutes")
        const phone = newPhone()
        for (let i = 0; i < OTP_PER_10_MINUTES; i++) expect((await requestOtp(phone)).status).toBe(200)
        // The second instance has never seen this number in its memory: only Redis can refuse it.
        expectError(
          await client(second).post("/auth/request-otp", { body: { phone_number: phone } }),
          429,
          "RATE_LIMITED"
        )
      } finally {
        await second.close()
      }
    },
    60_000
  )
})
