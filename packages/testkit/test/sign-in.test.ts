import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../http-server/test/support/migrated-databases.js"
import { newPhoneNumber, startTestServer, type TestServer, type TestServerOptions } from "../src/index.js"

describe("TestServer.signIn", () => {
  const adminPhone = newPhoneNumber()
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer(
      await withMigratedDump<TestServerOptions>({ settings: { adminPhoneNumbers: [adminPhone] } })
    )
  }, 60_000)
  afterAll(() => server.close())

  const call = async (method: string, path: string, options: { token?: string; body?: unknown } = {}) => {
    const response = await fetch(`${server.apiUrl}${path}`, {
      method,
      headers: {
        ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { "content-type": "application/json" } : {})
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {})
    })
    return { status: response.status, body: await response.json() }
  }

  it("opens a session the API accepts: /users/me answers its user, refresh works, logout ends it", async () => {
    const { user, tokens } = await server.signIn()
    expect(user.is_admin).toBe(false)
    expect(tokens.expires_in).toBe(86_400)

    const me = await call("GET", "/users/me", { token: tokens.access_token })
    expect(me.status).toBe(200)
    expect(me.body.data).toMatchObject({ id: user.id, phone_number: user.phone_number, created_at: user.created_at })

    const refreshed = await call("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } })
    expect(refreshed.status).toBe(200)
    expect((await call("GET", "/users/me", { token: refreshed.body.data.access_token })).status).toBe(200)

    expect((await call("POST", "/auth/logout", { token: tokens.access_token })).status).toBe(200)
    expect((await call("GET", "/users/me", { token: tokens.access_token })).status).toBe(401)
    expect((await call("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } })).status).toBe(401)
    expect(server.sms.sent).toEqual([])
  })

  it("makes a phone listed in adminPhoneNumbers an admin", async () => {
    const { user, tokens } = await server.signIn(adminPhone)
    expect(user.is_admin).toBe(true)
    expect((await call("GET", "/users/me", { token: tokens.access_token })).body.data.is_admin).toBe(true)
  })

  it("answers what verify-otp answers, for the same user", async () => {
    const phone = newPhoneNumber()
    expect((await call("POST", "/auth/request-otp", { body: { phone_number: phone } })).status).toBe(200)
    const verified = await call("POST", "/auth/verify-otp", {
      body: { phone_number: phone, otp_code: server.sms.lastCode(phone) }
    })
    const minted = await server.signIn(phone)
    expect(minted.user).toEqual(verified.body.data.user)
    expect(Object.keys(minted).sort()).toEqual(Object.keys(verified.body.data).sort())
    expect(Object.keys(minted.tokens).sort()).toEqual(Object.keys(verified.body.data.tokens).sort())
    expect(minted.tokens.expires_in).toBe(verified.body.data.tokens.expires_in)
    expect(minted.tokens.access_token).not.toBe(verified.body.data.tokens.access_token)
  })

  it("records the device named, with no network", async () => {
    const { tokens } = await server.signIn(undefined, { device: { platform: "ios", name: "  Sara's iPhone " } })
    const sessions = await call("GET", "/auth/sessions", { token: tokens.access_token })
    expect(sessions.body.data.sessions).toMatchObject([
      { device: { platform: "ios", name: "Sara's iPhone" }, approximate_ip: null, current: true }
    ])
  })

  it("signs in on the server's clock", async () => {
    server.clock.advance("25 hours")
    const { tokens } = await server.signIn()
    expect((await call("GET", "/users/me", { token: tokens.access_token })).status).toBe(200)
  })

  it("rejects a number verify-otp refuses, and a device it refuses", async () => {
    await expect(server.signIn("0501234567")).rejects.toThrow("signIn(0501234567): not a mobile number")
    await expect(server.signIn(undefined, { device: { platform: "ios", name: "" } })).rejects.toThrow(/name/)
  })
})
