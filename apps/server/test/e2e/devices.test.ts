import { describe, expect, it } from "vitest"
import { expectError, ISO_UTC, UUID } from "../support/fixtures.js"
import { backends, client, relaxedLimits, signIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"

const en = { "accept-language": "en" }
const json = { "content-type": "application/json" }

describe.each(backends)("device tokens on %s", (backend) => {
  const { server, databaseUrl } = useServerWithDatabase(backend, { settings: relaxedLimits })
  const api = () => client(server())
  let tokenCounter = 0
  const newPushToken = () => `push-${backend}-${Date.now()}-${++tokenCounter}`

  /** Who holds each of these push tokens, read from the database (PostgreSQL only; undefined on PGlite). */
  const holders = async (pushTokens: ReadonlyArray<string>) => {
    const url = databaseUrl()
    if (url === undefined) return undefined
    const rows = await runSql(
      url,
      (sql) =>
        sql<{
          push_token: string
          user_id: string
          platform: string
        }>`SELECT push_token, user_id, platform FROM device_tokens WHERE push_token IN ${sql.in(pushTokens)}`
    )
    return Object.fromEntries(rows.map((row) => [row.push_token, `${row.user_id}/${row.platform}`]))
  }

  it("registers a device with 201: id, platform, created_at", async () => {
    const me = await signIn(server(), api())
    const pushToken = newPushToken()
    const response = await api().post("/device-tokens", {
      token: me.token,
      body: { platform: "ios", push_token: pushToken }
    })
    expect(response.status).toBe(201)
    expect(response.body).toEqual({
      success: true,
      data: { id: expect.stringMatching(UUID), platform: "ios", created_at: expect.stringMatching(ISO_UTC) }
    })
    const stored = await holders([pushToken])
    if (stored) expect(stored).toEqual({ [pushToken]: `${me.userId}/ios` })
  })

  it.each(["ios", "android", "web"] as const)("accepts the platform %s", async (platform) => {
    const me = await signIn(server(), api())
    const response = await api().post("/device-tokens", {
      token: me.token,
      body: { platform, push_token: newPushToken() }
    })
    expect(response.status).toBe(201)
    expect(response.body.data.platform).toBe(platform)
  })

  it("moves a known push token to the caller (upsert), keeping its id, with 201", async () => {
    const first = await signIn(server(), api())
    const second = await signIn(server(), api())
    const pushToken = newPushToken()
    const before = await api().post("/device-tokens", {
      token: first.token,
      body: { platform: "android", push_token: pushToken }
    })
    const again = await api().post("/device-tokens", {
      token: first.token,
      body: { platform: "android", push_token: pushToken }
    })
    expect(again.status).toBe(201)
    expect(again.body.data.id).toBe(before.body.data.id)
    const moved = await api().post("/device-tokens", {
      token: second.token,
      body: { platform: "ios", push_token: pushToken }
    })
    expect(moved.status).toBe(201)
    expect(moved.body.data).toMatchObject({ id: before.body.data.id, platform: "ios" })
    const stored = await holders([pushToken])
    if (stored) expect(stored).toEqual({ [pushToken]: `${second.userId}/ios` })
  })

  it.each([
    [
      "an unknown platform",
      { platform: "symbian", push_token: "t" },
      ["platform"],
      "Must be one of: ios, android, web"
    ],
    ["a missing push_token", { platform: "ios" }, ["push_token"], "This field is required"],
    ["an empty push_token", { platform: "ios", push_token: "" }, ["push_token"], "Must be at least 1 character"],
    [
      "a push_token over 4096 characters",
      { platform: "ios", push_token: "t".repeat(4097) },
      ["push_token"],
      "Must be at most 4096 characters"
    ],
    ["a push_token that is not a string", { platform: "ios", push_token: 12345 }, ["push_token"], "Must be a string"],
    ["nothing at all", {}, ["platform", "push_token"], undefined]
  ])("refuses %s with 400 naming the field, and stores nothing", async (_, body, fields, message) => {
    const me = await signIn(server(), api())
    const error = expectError(
      await api().raw.post("/device-tokens", { token: me.token, body, headers: en }),
      400,
      "VALIDATION_ERROR",
      fields
    )
    if (message !== undefined) expect(error.details[fields[0]!]).toEqual([message])
    const pushToken = (body as { push_token?: unknown }).push_token
    const stored = typeof pushToken === "string" && pushToken !== "" ? await holders([pushToken]) : undefined
    if (stored) expect(stored).toEqual({})
  })

  it("accepts a push_token of exactly 4096 characters", async () => {
    const me = await signIn(server(), api())
    const pushToken = `${newPushToken()}-`.padEnd(4096, "x")
    expect(
      (await api().post("/device-tokens", { token: me.token, body: { platform: "web", push_token: pushToken } })).status
    ).toBe(201)
  })

  it.each([
    ["malformed JSON", '{"platform":'],
    ["a JSON array", "[]"],
    ["an empty body with Content-Type: application/json", ""],
    ["a body of null", "null"]
  ])("refuses %s with 400 on body", async (_, rawBody) => {
    const me = await signIn(server(), api())
    expectError(
      await api().raw.post("/device-tokens", { token: me.token, rawBody, headers: json }),
      400,
      "VALIDATION_ERROR",
      ["body"]
    )
  })

  it("ignores unknown fields: user_id is never taken from the body", async () => {
    const me = await signIn(server(), api())
    const victim = await signIn(server(), api())
    const pushToken = newPushToken()
    const response = await api().raw.post("/device-tokens", {
      token: me.token,
      body: { platform: "ios", push_token: pushToken, user_id: victim.userId, id: crypto.randomUUID() }
    })
    expect(response.status).toBe(201)
    const stored = await holders([pushToken])
    if (stored) expect(stored).toEqual({ [pushToken]: `${me.userId}/ios` })
  })

  it("answers 401 without a valid token, before looking at the body", async () => {
    expectError(await api().post("/device-tokens", { body: { platform: "ios", push_token: "t" } }), 401, "UNAUTHORIZED")
    expectError(await api().raw.post("/device-tokens", { rawBody: "{", headers: json }), 401, "UNAUTHORIZED")
  })

  it("logout removes the given device token of the caller and its session's own, no other", async () => {
    const me = await signIn(server(), api())
    // The same user on another device: what it registered stays unless named.
    const elsewhere = await signIn(server(), api(), me.phone)
    const other = await signIn(server(), api())
    const [leaving, staying, ownSession, othersToken] = [newPushToken(), newPushToken(), newPushToken(), newPushToken()]
    for (const pushToken of [leaving, staying]) {
      await api().post("/device-tokens", { token: elsewhere.token, body: { platform: "ios", push_token: pushToken } })
    }
    await api().post("/device-tokens", { token: me.token, body: { platform: "web", push_token: ownSession } })
    await api().post("/device-tokens", { token: other.token, body: { platform: "android", push_token: othersToken } })
    expect((await api().post("/auth/logout", { token: me.token, body: { device_token: leaving } })).status).toBe(200)
    const again = await signIn(server(), api(), me.phone)
    // Naming someone else's token at logout leaves it with them.
    expect((await api().post("/auth/logout", { token: again.token, body: { device_token: othersToken } })).status).toBe(
      200
    )
    const stored = await holders([leaving, staying, ownSession, othersToken])
    if (stored) expect(stored).toEqual({ [staying]: `${me.userId}/ios`, [othersToken]: `${other.userId}/android` })
  })
})
