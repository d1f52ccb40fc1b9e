import { randomUUID } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { expectError, ISO_UTC } from "../support/fixtures.js"
import {
  backends,
  client,
  newPhone,
  relaxedLimits,
  type SignedIn,
  signInOverHttp,
  useServer,
  useServerWithDatabase
} from "../support/harness.js"
import { claimsOf, resigned } from "../support/jwt.js"
import { runSql } from "../support/postgres.js"
import { connectAs, WsClient } from "../support/ws-client.js"

const en = { "accept-language": "en" }
const iphone = { platform: "ios", name: "Sara's iPhone" } as const

const sessionIdOf = (signedIn: SignedIn) => claimsOf(signedIn.token).sid as string

describe.each(backends)("sessions on %s", (backend) => {
  const server = useServer(backend, { settings: relaxedLimits })
  const api = () => client(server())
  const sockets: Array<WsClient> = []
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close()
  })

  /** The same user signed in on two devices: the first (older) and the second (newer). */
  const twoDevices = async () => {
    const phone = newPhone()
    const older = await signInOverHttp(server(), api(), phone, iphone)
    const newer = await signInOverHttp(server(), api(), phone)
    return { older, newer }
  }
  const list = (token: string) => api().get("/auth/sessions", { token, headers: en })
  /** Registers a push token from a session; the answer's id is the same only while the token is still registered. */
  const registerPush = async (token: string, pushToken: string) => {
    const response = await api().post("/device-tokens", { token, body: { platform: "android", push_token: pushToken } })
    expect(response.status).toBe(201)
    return response.body.data.id as string
  }

  describe("GET /auth/sessions", () => {
    it("lists the caller's live sessions newest first, with device, network and the current one marked", async () => {
      const { older, newer } = await twoDevices()
      const someoneElse = await signInOverHttp(server(), api())
      const response = await list(older.token)
      expect(response.status).toBe(200)
      const sessions = response.body.data.sessions
      expect(sessions.map((s) => s.id)).toEqual([sessionIdOf(newer), sessionIdOf(older)])
      expect(sessions.map((s) => s.id)).not.toContain(sessionIdOf(someoneElse))
      const [second, first] = sessions
      expect(first).toEqual({
        id: sessionIdOf(older),
        created_at: expect.stringMatching(ISO_UTC),
        last_used_at: first.created_at,
        device: iphone,
        // The test client connects from 127.0.0.1: only its /24 is kept.
        approximate_ip: "127.0.0.0/24",
        current: true
      })
      expect(second).toMatchObject({ device: null, current: false })
      expect((await list(newer.token)).body.data.sessions.map((s) => s.current)).toEqual([true, false])
    })

    it("leaves out ended and expired sessions", async () => {
      const { older, newer } = await twoDevices()
      expect((await api().post("/auth/logout", { token: newer.token })).status).toBe(200)
      expect((await list(older.token)).body.data.sessions.map((s) => s.id)).toEqual([sessionIdOf(older)])
    })

    it("moves last_used_at at most once a minute, and at every refresh", async () => {
      const me = await signInOverHttp(server(), api())
      const lastUsed = async () => new Date((await list(me.token)).body.data.sessions[0].last_used_at).getTime()
      const signedInAt = await lastUsed()
      server().clock.advance("30 seconds")
      expect(await lastUsed()).toBe(signedInAt)
      server().clock.advance("31 seconds")
      const before = server().clock.now().getTime()
      const touched = await lastUsed()
      expect(touched).toBeGreaterThanOrEqual(before)
      expect(touched).toBeLessThanOrEqual(server().clock.now().getTime())

      server().clock.advance("5 seconds")
      const refreshedAt = server().clock.now().getTime()
      expect((await api().post("/auth/refresh", { body: { refresh_token: me.refreshToken } })).status).toBe(200)
      expect(await lastUsed()).toBeGreaterThanOrEqual(refreshedAt)
    })
  })

  describe("verify-otp with a device", () => {
    it.each([
      ["an unknown platform", { platform: "symbian", name: "Nokia" }, ["device.platform"]],
      ["no platform", { name: "Nokia" }, ["device.platform"]],
      ["an empty name", { platform: "ios", name: "  " }, ["device.name"]],
      ["a name over 100 characters", { platform: "web", name: "x".repeat(101) }, ["device.name"]],
      ["a name on two lines", { platform: "android", name: "Pixel\nof Sara" }, ["device.name"]],
      ["not an object", "iPhone", ["device"]]
    ])("refuses %s with 400 and signs nobody in, the code still usable", async (_, device, fields) => {
      const phone = newPhone()
      await api().post("/auth/request-otp", { body: { phone_number: phone } })
      const code = server().sms.lastCode(phone)
      const refused = await api().raw.post("/auth/verify-otp", {
        body: { phone_number: phone, otp_code: code, device }
      })
      expectError(refused, 400, "VALIDATION_ERROR", fields)
      const verified = await api().post("/auth/verify-otp", { body: { phone_number: phone, otp_code: code! } })
      expect(verified.status).toBe(200)
      expect((await list(verified.body.data.tokens.access_token)).body.data.sessions).toHaveLength(1)
    })
  })

  describe("DELETE /auth/sessions/{id}", () => {
    it("ends another session of the caller: its tokens answer 401, its socket closes with 4401, its push tokens go", async () => {
      const { older, newer } = await twoDevices()
      const socket = await connectAs(server().wsUrl, older.token)
      sockets.push(socket)
      const pushToken = `push-${randomUUID()}`
      const registered = await registerPush(older.token, pushToken)

      const response = await api().delete(`/auth/sessions/${sessionIdOf(older)}`, { token: newer.token, headers: en })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ success: true, data: {}, message: "The session has been ended" })

      expectError(await api().get("/users/me", { token: older.token }), 401, "UNAUTHORIZED")
      expectError(
        await api().post("/auth/refresh", { body: { refresh_token: older.refreshToken } }),
        401,
        "INVALID_REFRESH_TOKEN"
      )
      expect((await socket.closed).code).toBe(4401)
      // Gone: registering it again makes a new registration.
      expect(await registerPush(newer.token, pushToken)).not.toBe(registered)
      expect((await list(newer.token)).body.data.sessions.map((s) => s.id)).toEqual([sessionIdOf(newer)])
    })

    it("ends the caller's own session too, like logout", async () => {
      const me = await signInOverHttp(server(), api())
      expect((await api().delete(`/auth/sessions/${sessionIdOf(me)}`, { token: me.token })).status).toBe(200)
      expectError(await api().get("/auth/sessions", { token: me.token }), 401, "UNAUTHORIZED")
    })

    it("answers the same 404 for another user's session, an unknown, a malformed or an ended id, and ends nothing", async () => {
      const { older, newer } = await twoDevices()
      const other = await signInOverHttp(server(), api())
      expect((await api().post("/auth/logout", { token: newer.token })).status).toBe(200)
      const answers = []
      for (const id of [sessionIdOf(other), randomUUID(), "not-a-session", sessionIdOf(newer)]) {
        const response = await api().delete(`/auth/sessions/${id}`, { token: older.token, headers: en })
        expectError(response, 404, "NOT_FOUND")
        answers.push(response.body)
      }
      expect(new Set(answers.map((body) => JSON.stringify(body))).size).toBe(1)
      expect((await api().get("/users/me", { token: other.token })).status).toBe(200)
    })
  })

  describe("DELETE /auth/sessions", () => {
    it("ends every other session of the caller, keeps the current one and answers how many", async () => {
      const phone = newPhone()
      const [first, second, current] = [
        await signInOverHttp(server(), api(), phone),
        await signInOverHttp(server(), api(), phone),
        await signInOverHttp(server(), api(), phone)
      ]
      const other = await signInOverHttp(server(), api())
      const sockets2 = await Promise.all([first, second].map((s) => connectAs(server().wsUrl, s.token)))
      sockets.push(...sockets2)
      const pushToken = `push-${randomUUID()}`
      const registered = await registerPush(first.token, pushToken)

      const response = await api().delete("/auth/sessions", { token: current.token, headers: en })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        success: true,
        data: { ended: 2 },
        message: "Your other sessions have been ended"
      })
      for (const ended of [first, second])
        expectError(await api().get("/users/me", { token: ended.token }), 401, "UNAUTHORIZED")
      for (const socket of sockets2) expect((await socket.closed).code).toBe(4401)
      expect(await registerPush(current.token, pushToken)).not.toBe(registered)
      expect((await api().get("/users/me", { token: current.token })).status).toBe(200)
      expect((await api().get("/users/me", { token: other.token })).status).toBe(200)
      expect((await api().delete("/auth/sessions", { token: current.token })).body.data).toEqual({ ended: 0 })
    })
  })

  describe("push tokens belong to the session that registered them", () => {
    it("logout removes the session's push tokens, not those another session registered", async () => {
      const { older, newer } = await twoDevices()
      const ofOlder = `push-${randomUUID()}`
      const ofNewer = `push-${randomUUID()}`
      const olderId = await registerPush(older.token, ofOlder)
      const newerId = await registerPush(newer.token, ofNewer)
      expect((await api().post("/auth/logout", { token: older.token })).status).toBe(200)
      expect(await registerPush(newer.token, ofNewer)).toBe(newerId)
      expect(await registerPush(newer.token, ofOlder)).not.toBe(olderId)
    })

    it("a token registered again from another session moves to it, and stays when the first session ends", async () => {
      const { older, newer } = await twoDevices()
      const pushToken = `push-${randomUUID()}`
      const id = await registerPush(older.token, pushToken)
      expect(await registerPush(newer.token, pushToken)).toBe(id)
      expect((await api().delete(`/auth/sessions/${sessionIdOf(older)}`, { token: newer.token })).status).toBe(200)
      expect(await registerPush(newer.token, pushToken)).toBe(id)
    })
  })

  describe("who may call", () => {
    it.each([
      ["GET", "/auth/sessions"],
      ["DELETE", "/auth/sessions"],
      ["DELETE", `/auth/sessions/${randomUUID()}`]
    ])("%s %s answers 401 without a token and to a refresh token", async (method, path) => {
      const me = await signInOverHttp(server(), api())
      expectError(await api().raw.call(method, path), 401, "UNAUTHORIZED")
      expectError(await api().raw.call(method, path, { token: me.refreshToken }), 401, "UNAUTHORIZED")
      expect((await list(me.token)).body.data.sessions).toHaveLength(1)
    })

    it("answers a token signed with the server's key whose sid or sub is not a UUID as an unknown session, logging no error", async () => {
      const me = await signInOverHttp(server(), api())
      const since = new Date()
      // The signature is right, so only the ids decide: the token verifier refuses them before any look-up.
      for (const ids of [{ sid: "not-a-uuid" }, { sub: "not-a-uuid" }, { sid: "1' OR '1'='1" }]) {
        const access = resigned(me.token, ids)
        expectError(await list(access), 401, "UNAUTHORIZED")
        expectError(
          await api().post("/requests", {
            token: access,
            headers: { "idempotency-key": randomUUID() },
            body: { category: "phone", budget_min: 1, budget_max: 2, location_district: "Olaya" }
          }),
          401,
          "UNAUTHORIZED"
        )
        expectError(
          await api().post("/auth/refresh", { body: { refresh_token: resigned(me.refreshToken, ids) } }),
          401,
          "INVALID_REFRESH_TOKEN"
        )
        const socket = await WsClient.connect(server().wsUrl)
        sockets.push(socket)
        socket.send({ type: "auth", token: access })
        expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
        expect((await socket.closed).code).toBe(4401)
      }
      expect((await list(me.token)).status).toBe(200)
      expect(server().logs.lines.filter((line) => line.at >= since && line.level === "ERROR")).toEqual([])
    })
  })
})

describe("ending sessions while they register push tokens, on PostgreSQL", () => {
  // One phone signs in nine times.
  const { server, databaseUrl } = useServerWithDatabase("postgres", {
    settings: { rateLimits: { ...relaxedLimits.rateLimits, otpPer10Minutes: 100 } }
  })
  const api = () => client(server())

  it("leaves no push token under an ended session: each registration either lands first and goes, or answers 401", async () => {
    const phone = newPhone()
    const current = await signInOverHttp(server(), api(), phone)
    const others: Array<SignedIn> = []
    for (let i = 0; i < 8; i++) others.push(await signInOverHttp(server(), api(), phone))
    const registrations = others.flatMap((session) =>
      [0, 1].map((n) =>
        api().post("/device-tokens", {
          token: session.token,
          body: { platform: "ios", push_token: `race-${randomUUID()}-${n}` }
        })
      )
    )
    const [ended, ...answers] = await Promise.all([
      api().delete("/auth/sessions", { token: current.token }),
      ...registrations
    ])
    expect(ended.body.data).toEqual({ ended: 8 })
    for (const answer of answers) expect([201, 401]).toContain(answer.status)
    const left = await runSql(
      databaseUrl()!,
      (sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM device_tokens d JOIN sessions s ON s.id = d.session_id
        WHERE s.user_id = ${current.userId}`
    )
    expect(left).toEqual([{ n: 0 }])
  })
})
