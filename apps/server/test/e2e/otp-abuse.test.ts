import type { TestServer } from "@talab/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../support/fixtures.js"
import { backends, client, newPhone, relaxedLimits, startServer, useServer } from "../support/harness.js"

const HOUR = 60 * 60_000
const GULF = ["SA", "AE", "KW", "QA", "BH", "OM"]
const en = { "accept-language": "en" }

let networkCounter = 0
/**
 * A client network of its own (an IPv6 /64): called with `i`, its i-th address; `key`, the network as the server
 * names it. The server trusts the proxy, so the address is the X-Forwarded-For header.
 */
const newNetwork = () => {
  networkCounter += 1
  const prefix = `2001:db8:a11:${networkCounter.toString(16)}`
  const at = (i = 0) => `${prefix}:${(i + 1).toString(16)}::${(i * 31 + 7).toString(16)}`
  return Object.assign(at, { key: `${prefix}::/64` })
}

const requestOtp = (server: TestServer, phone: string, address: string) =>
  client(server).post("/auth/request-otp", {
    body: { phone_number: phone },
    headers: { "x-forwarded-for": address, ...en }
  })

const smsTo = (server: TestServer, phone: string) => server.sms.sent.filter((sms) => sms.to === phone)

/** A 429 RATE_LIMITED with Retry-After, as every limit answers. */
const expectRefusedForBudget = (response: { status: number; body: unknown; headers: Headers }, limit: number) => {
  expectError(response, 429, "RATE_LIMITED")
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  expect(Number(response.headers.get("retry-after"))).toBeLessThanOrEqual(3600)
  expect(response.headers.get("ratelimit-limit")).toBe(String(limit))
  expect(response.headers.get("ratelimit-remaining")).toBe("0")
}

const budgetSettings = (perHour: number, perNetworkPerHour: number) => ({
  ...relaxedLimits,
  trustProxy: true,
  smsBudget: { allowedCountries: GULF, perHour, perNetworkPerHour }
})

const spentLines = (server: TestServer, message: string) => server.logs.lines.filter((l) => l.message === message)
const NETWORK_SPENT = "SMS: a client network spent its hourly budget of codes"
const ALL_SPENT = "SMS: the hourly budget of codes is spent; request-otp answers 429"

describe.each(backends)("SMS destinations and the owner's code on %s", (backend) => {
  const server = useServer(backend, {
    settings: budgetSettings(1000, 1000),
    testPhoneNumbers: "+966500000077=123456@2099-12-31,+447400123456=654321@2099-12-31"
  })

  it.each([
    ["SA", "+966512345678"],
    ["AE", "+971501234567"],
    ["KW", "+96550012345"],
    ["QA", "+97433123456"],
    ["BH", "+97336001234"],
    ["OM", "+96892123456"]
  ])("sends codes to mobile numbers of %s", async (_, phone) => {
    expect((await requestOtp(server(), phone, newNetwork()())).status).toBe(200)
    expect(smsTo(server(), phone)).toHaveLength(1)
  })

  it.each([
    ["Iridium (+8816)", "+881631234567"],
    ["Inmarsat (+870)", "+870773111632"],
    ["Comoros", "+2693212345"],
    ["Nauru", "+6745551234"],
    ["the United States", "+12015550123"],
    ["Egypt", "+201001234567"]
  ])("refuses a mobile number of %s with 400 on phone_number, and sends nothing", async (_, phone) => {
    const sentBefore = server().sms.sent.length
    const error = expectError(await requestOtp(server(), phone, newNetwork()()), 400, "VALIDATION_ERROR", [
      "phone_number"
    ])
    expect(error.details.phone_number).toEqual([
      "Codes are not sent to numbers of this country. Countries served: SA, AE, KW, QA, BH, OM"
    ])
    expect(server().sms.sent.length).toBe(sentBefore)
  })

  it("says so in Arabic too", async () => {
    const response = await client(server()).post("/auth/request-otp", { body: { phone_number: "+201001234567" } })
    const error = expectError(response, 400, "VALIDATION_ERROR", ["phone_number"])
    expect(error.details.phone_number?.[0]).toMatch(/^لا نرسل رموز التحقق/)
  })

  it("holds a test phone number to the country rule too", async () => {
    expectError(await requestOtp(server(), "+447400123456", newNetwork()()), 400, "VALIDATION_ERROR", ["phone_number"])
    const listedAtHome = await requestOtp(server(), "+966500000077", newNetwork()())
    expect(listedAtHome.status).toBe(200)
  })

  it("lets nobody on another network take the owner's code: the owner signs in with the code it received first", async () => {
    const owner = newPhone()
    const home = newNetwork()
    expect((await requestOtp(server(), owner, home())).status).toBe(200)
    const received = server().sms.lastCode(owner)!

    const elsewhere = newNetwork()
    for (let i = 0; i < 2; i++) expect((await requestOtp(server(), owner, elsewhere(i))).status).toBe(200)
    // The number's third code in ten minutes was asked for elsewhere; the owner's code still stands.
    expect(smsTo(server(), owner).map((sms) => sms.code)).toEqual([received, received, received])
    const verified = await client(server()).post("/auth/verify-otp", {
      body: { phone_number: owner, otp_code: received },
      headers: { "x-forwarded-for": home(1) }
    })
    expect(verified.status).toBe(200)
    expect(verified.body.data.user.phone_number).toBe(owner)
  })
})

describe.each(backends)("SMS budget per client network on %s", (backend) => {
  const PER_NETWORK = 5
  const server = useServer(backend, {
    settings: budgetSettings(1000, PER_NETWORK),
    testPhoneNumbers: "+966500000078=123456@2099-12-31"
  })

  it("sends 5 codes an hour to requests from one /64, whatever its addresses; the 6th is 429, logged once", async () => {
    const network = newNetwork()
    const sentBefore = server().sms.sent.length
    for (let i = 0; i < PER_NETWORK; i++) expect((await requestOtp(server(), newPhone(), network(i))).status).toBe(200)
    for (let i = 0; i < 3; i++)
      expectRefusedForBudget(await requestOtp(server(), newPhone(), network(40 + i)), PER_NETWORK)
    expect(server().sms.sent.length - sentBefore).toBe(PER_NETWORK)
    const logged = spentLines(server(), NETWORK_SPENT).filter((line) => line.annotations.network === network.key)
    expect(logged).toHaveLength(1)
    expect(logged[0]!.level).toBe("WARN")

    expect((await requestOtp(server(), newPhone(), newNetwork()())).status).toBe(200)
    server().clock.advance(HOUR)
    expect((await requestOtp(server(), newPhone(), network(7))).status).toBe(200)
  })

  it("counts a test phone number like any other, and refuses it when the network's budget is spent", async () => {
    const network = newNetwork()
    expect((await requestOtp(server(), "+966500000078", network())).status).toBe(200)
    for (let i = 1; i < PER_NETWORK; i++) expect((await requestOtp(server(), newPhone(), network(i))).status).toBe(200)
    expectRefusedForBudget(await requestOtp(server(), "+966500000078", network(9)), PER_NETWORK)
  })
})

describe.each(backends)("SMS budget of the whole server on %s", (backend) => {
  const PER_HOUR = 8
  const server = useServer(backend, { settings: budgetSettings(PER_HOUR, 5) })

  it("sends 8 codes an hour in all, from any networks; past it 429, logged once; an hour later it sends again", async () => {
    const sentBefore = server().sms.sent.length
    for (let i = 0; i < PER_HOUR; i++) {
      expect((await requestOtp(server(), newPhone(), newNetwork()())).status).toBe(200)
    }
    for (let i = 0; i < 4; i++) expectRefusedForBudget(await requestOtp(server(), newPhone(), newNetwork()()), PER_HOUR)
    expect(server().sms.sent.length - sentBefore).toBe(PER_HOUR)
    expect(spentLines(server(), ALL_SPENT)).toHaveLength(1)
    server().clock.advance(HOUR)
    expect((await requestOtp(server(), newPhone(), newNetwork()())).status).toBe(200)
  })
})

describe("SMS budgets shared through Redis", () => {
  const redisUrl = process.env.TALAB_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
  const prefix = `talab-e2e:${crypto.randomUUID()}:`
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    const settings = budgetSettings(6, 3)
    ;[first, second] = await Promise.all([
      startServer({ settings, redisUrl, redisPrefix: prefix }),
      startServer({ settings, redisUrl, redisPrefix: prefix })
    ])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()])
  })

  it("two instances share one network's budget and the overall one", async () => {
    const network = newNetwork()
    for (const server of [first, second, first]) {
      expect((await requestOtp(server, newPhone(), network())).status).toBe(200)
    }
    expectRefusedForBudget(await requestOtp(second, newPhone(), network(1)), 3)
    const other = newNetwork()
    for (const server of [second, first, second]) {
      expect((await requestOtp(server, newPhone(), other())).status).toBe(200)
    }
    expectRefusedForBudget(await requestOtp(first, newPhone(), newNetwork()()), 6)
    expectRefusedForBudget(await requestOtp(second, newPhone(), newNetwork()()), 6)
    expect(first.sms.sent.length + second.sms.sent.length).toBe(6)
  })
})
