import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { aRequestBody, expectError, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends, newPhone, type Response, type SignedIn, signIn } from "../support/harness.js"

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))
const avatarForm = () => {
  const form = new FormData()
  form.append("avatar", new Blob([png], { type: "image/png" }), "me.png")
  return form
}

const keyed = (key: string, headers: Record<string, string> = {}) => ({ "idempotency-key": key, ...headers })

/** The same answer: status, body and content type; the second one says it is a replay. */
const expectReplayOf = (replay: Response, first: Response) => {
  expect(first.headers.get("idempotent-replayed")).toBeNull()
  expect(replay.headers.get("idempotent-replayed")).toBe("true")
  expect({ status: replay.status, body: replay.body }).toEqual({ status: first.status, body: first.body })
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"))
}

/*
 * Idempotency-Key on every POST (docs/DECISIONS.md, "Idempotency keys"). Concurrency (409, one thing created
 * by parallel retries), the release after a 5xx and two instances are in idempotency-races.test.ts (PostgreSQL).
 */
describe.each(backends)("Idempotency-Key on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const api = () => m.api()
  const myRequestCount = async (user: SignedIn) =>
    (await api().get("/requests/my?per_page=1", { token: user.token })).body.data.pagination.total

  it("replays the stored answer of a POST (status, body, content type) with Idempotent-Replayed, creating nothing more", async () => {
    const buyer = await m.user()
    const key = randomUUID()
    const first = await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    expect(first.status).toBe(201)
    const replay = await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    expectReplayOf(replay, first)
    expect(await myRequestCount(buyer)).toBe(1)
  })

  it("counts a replay against the caller's API limit like any call", async () => {
    const buyer = await m.user()
    const key = randomUUID()
    const send = () => api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    const first = Number((await send()).headers.get("ratelimit-remaining"))
    const replay = await send()
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(Number(replay.headers.get("ratelimit-remaining"))).toBe(first - 1)
  })

  it("answers 422 IDEMPOTENCY_KEY_REUSED to the same key with another body or on another route, and runs neither", async () => {
    const buyer = await m.user()
    const key = randomUUID()
    await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    const error = expectError(
      await api().post("/requests", {
        token: buyer.token,
        body: aRequestBody({ budget_max: 2001 }),
        headers: keyed(key, { "accept-language": "en" })
      }),
      422,
      "IDEMPOTENCY_KEY_REUSED"
    )
    expect(error.message).toBe("This Idempotency-Key was used with a different request")
    expectError(
      await api().post("/reports", {
        token: buyer.token,
        body: { reported_user_id: unknownId(), reason: "scam" },
        headers: keyed(key)
      }),
      422,
      "IDEMPOTENCY_KEY_REUSED"
    )
    expect(await myRequestCount(buyer)).toBe(1)
  })

  it("refuses a key that is empty, longer than 255 or not printable ASCII with 400 naming the header, and runs nothing", async () => {
    const buyer = await m.user()
    for (const key of ["", "k".repeat(256), "clé"]) {
      const error = expectError(
        await api().post("/requests", {
          token: buyer.token,
          body: aRequestBody(),
          headers: keyed(key, { "accept-language": "en" })
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(error.details).toEqual({ "Idempotency-Key": ["Must be 1 to 255 printable ASCII characters"] })
    }
    expect(await myRequestCount(buyer)).toBe(0)
    const longest = await api().post("/requests", {
      token: buyer.token,
      body: aRequestBody(),
      headers: keyed("printable ASCII: ~!".padEnd(255, "k"))
    })
    expect(longest.status).toBe(201)
  })

  it("answers 401 to a call without a valid token, even with a bad key, and stores nothing for its key", async () => {
    const buyer = await m.user()
    const key = randomUUID()
    expectError(await api().post("/requests", { body: aRequestBody(), headers: keyed(key) }), 401, "UNAUTHORIZED")
    expectError(await api().post("/requests", { body: aRequestBody(), headers: keyed("") }), 401, "UNAUTHORIZED")
    const run = await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    expect(run.status).toBe(201)
    expect(run.headers.get("idempotent-replayed")).toBeNull()
  })

  it("keeps keys per user: another user sending the same key and body runs their own call", async () => {
    const [a, b] = [await m.user(), await m.user()]
    const key = randomUUID()
    const ofA = await api().post("/requests", { token: a.token, body: aRequestBody(), headers: keyed(key) })
    const ofB = await api().post("/requests", { token: b.token, body: aRequestBody(), headers: keyed(key) })
    expect(ofB.status).toBe(201)
    expect(ofB.headers.get("idempotent-replayed")).toBeNull()
    expect(ofB.body.data.id).not.toBe(ofA.body.data.id)
    expect(await myRequestCount(b)).toBe(1)
  })

  it("replays a stored 4xx answer, but releases the key after a 400 so a fixed body can use it", async () => {
    const buyer = await m.user()
    const notFound = randomUUID()
    const missingOffer = unknownId()
    const first = await api().post(`/offers/${missingOffer}/accept`, { token: buyer.token, headers: keyed(notFound) })
    expectError(first, 404, "NOT_FOUND")
    expectReplayOf(
      await api().post(`/offers/${missingOffer}/accept`, { token: buyer.token, headers: keyed(notFound) }),
      first
    )

    const invalid = randomUUID()
    const refused = await api().post("/requests", {
      token: buyer.token,
      body: aRequestBody({ budget_min: -1 }),
      headers: keyed(invalid)
    })
    expectError(refused, 400, "VALIDATION_ERROR")
    const fixed = await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(invalid) })
    expect(fixed.status).toBe(201)
    expect(fixed.headers.get("idempotent-replayed")).toBeNull()
  })

  it("keeps an answer 24 hours: after that the same key and body run again", async () => {
    const phone = newPhone()
    const buyer = await signIn(server(), api(), phone)
    const key = randomUUID()
    const first = await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    server().clock.advance("23 hours")
    expect(
      (await api().post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })).headers.get(
        "idempotent-replayed"
      )
    ).toBe("true")
    server().clock.advance("61 minutes")
    // The access token has expired too (24 hours): the same user signs in again.
    const again = await signIn(server(), api(), phone)
    const fresh = await api().post("/requests", { token: again.token, body: aRequestBody(), headers: keyed(key) })
    expect(fresh.status).toBe(201)
    expect(fresh.headers.get("idempotent-replayed")).toBeNull()
    expect(fresh.body.data.id).not.toBe(first.body.data.id)
    expect(await myRequestCount(again)).toBe(2)
  })

  it("on /auth/* keys per client IP: a replayed request-otp sends no second SMS, a replayed verify-otp answers the same tokens", async () => {
    const phone = newPhone()
    const sent = () => server().sms.sent.filter((sms) => sms.to === phone).length
    const requestKey = randomUUID()
    const requested = await api().post("/auth/request-otp", {
      body: { phone_number: phone },
      headers: keyed(requestKey)
    })
    expect(requested.status).toBe(200)
    expectReplayOf(
      await api().post("/auth/request-otp", { body: { phone_number: phone }, headers: keyed(requestKey) }),
      requested
    )
    expect(sent()).toBe(1)

    const verifyKey = randomUUID()
    const body = { phone_number: phone, otp_code: server().sms.lastCode(phone)! }
    const verified = await api().post("/auth/verify-otp", { body, headers: keyed(verifyKey) })
    expect(verified.status).toBe(200)
    const replay = await api().post("/auth/verify-otp", { body, headers: keyed(verifyKey) })
    expectReplayOf(replay, verified)
    expect(replay.headers.get("cache-control")).toBe("no-store")
    const me = await api().get("/users/me", { token: replay.body.data.tokens.access_token })
    expect(me.status).toBe(200)
  })

  it("replays an avatar upload sent again as a new form (another multipart boundary), and 413 stores nothing", async () => {
    const user = await m.user()
    const key = randomUUID()
    const first = await api().post("/users/me/avatar", {
      token: user.token,
      rawBody: avatarForm(),
      headers: keyed(key)
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expectReplayOf(
      await api().post("/users/me/avatar", { token: user.token, rawBody: avatarForm(), headers: keyed(key) }),
      first
    )

    const tooLarge = new FormData()
    tooLarge.append("avatar", new Blob([new Uint8Array(7 * 1024 * 1024)], { type: "image/png" }), "big.png")
    const bigKey = randomUUID()
    expectError(
      await api().post("/users/me/avatar", { token: user.token, rawBody: tooLarge, headers: keyed(bigKey) }),
      413,
      "PAYLOAD_TOO_LARGE"
    )
    const after = await api().post("/users/me/avatar", {
      token: user.token,
      rawBody: avatarForm(),
      headers: keyed(bigKey)
    })
    expect(after.status).toBe(200)
    expect(after.headers.get("idempotent-replayed")).toBeNull()
  })
})
