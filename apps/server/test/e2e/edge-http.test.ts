import { createHash } from "node:crypto"
import { connect } from "node:net"
import { beforeAll, describe, expect, it, vi } from "vitest"
import { expectError } from "../support/fixtures.js"
import { backends, client, newPhone, type Response, type SignedIn, useServer } from "../support/harness.js"
import { type RawResponse, rawRequest } from "../support/raw-http.js"

/*
 * The HTTP edge as an attacker meets it: other spellings of a route, bodies of every type and shape, and the
 * headers every response carries. Each case asserts the exact status and code, and reads back that nothing
 * changed.
 */

const MiB = 1024 * 1024
const AUTH_LIMIT = 3
const json = { "content-type": "application/json" }
const en = { "accept-language": "en" }

let ipCounter = 0
/** A client address of its own (the server trusts X-Forwarded-For here), so each case has a fresh auth budget. */
const newIp = () => `198.51.100.${++ipCounter}`
const from = (ip: string) => ({ "x-forwarded-for": ip })

/** Every spelling the old router took for `path` (an `/api/v1/<group>/<rest>` path) that is not `path` itself. */
const otherSpellings = (path: string) => {
  const [, api, v1, group, ...rest] = path.split("/")
  const tail = rest.length > 0 ? `/${rest.join("/")}` : ""
  return [
    path.toUpperCase(),
    `/${api}/${v1?.toUpperCase()}/${group}${tail}`,
    `/${api}/${v1}/${group![0]!.toUpperCase()}${group!.slice(1)}${tail}`,
    `/${path}`,
    `/${api}/${v1}//${group}${tail}`,
    `/${api}/${v1}/${group}${tail}/`,
    `/${api}/${v1}/%${group!.charCodeAt(0).toString(16)}${group!.slice(1)}${tail}`,
    `/${api}/${v1}/%${group!.charCodeAt(0).toString(16).toUpperCase()}${group!.slice(1)}${tail}`,
    `/${api}/${v1}/./${group}${tail}`,
    `/${api}/${v1}/x/../${group}${tail}`,
    `${path}?`.replace("?", "%3F"),
    `/${api}/${v1}/${group}%2F${rest.join("/")}`
  ]
}

const expectRawError = (response: RawResponse, status: number, code: string) => expectError(response, status, code)

describe.each(backends)("the HTTP edge on %s", (backend) => {
  const server = useServer(backend, {
    settings: {
      rateLimits: {
        authPerMinute: AUTH_LIMIT,
        otpPer10Minutes: 3,
        apiPerMinute: 10_000,
        wsMessagesPerMinute: 50,
        wsHandshakesPerMinute: 1_000
      },
      trustProxy: true,
      hsts: true
    }
  })
  const api = () => client(server())
  const raw = (method: string, path: string, options: Parameters<typeof rawRequest>[3] = {}) =>
    rawRequest(server().baseUrl, method, path, options)
  const smsCount = () => server().sms.sent.length

  /** Signs a new number in from an address of its own (the auth limit here is low). */
  const signIn = async (): Promise<SignedIn> => {
    const phone = newPhone()
    const ip = from(newIp())
    expect((await api().post("/auth/request-otp", { body: { phone_number: phone }, headers: ip })).status).toBe(200)
    const verified = await api().post("/auth/verify-otp", {
      body: { phone_number: phone, otp_code: server().sms.lastCode(phone)! },
      headers: ip
    })
    expect(verified.status).toBe(200)
    const data = verified.body.data
    return {
      phone,
      userId: data.user.id,
      token: data.tokens.access_token,
      refreshToken: data.tokens.refresh_token,
      user: data.user
    }
  }

  const requestOtpRaw = (path: string, ip: string) =>
    raw("POST", path, {
      headers: { ...json, ...from(ip) },
      body: JSON.stringify({ phone_number: newPhone() })
    })

  describe("one spelling per route", () => {
    const spellings = otherSpellings("/api/v1/auth/request-otp")
    let me: SignedIn
    beforeAll(async () => {
      me = await signIn()
    })

    it("answers 404 NOT_FOUND to every other spelling of request-otp, uncounted and without an SMS", async () => {
      const ip = newIp()
      const before = smsCount()
      for (const path of spellings) {
        const response = await requestOtpRaw(path, ip)
        expectRawError(response, 404, "NOT_FOUND")
        expect(response.headers["ratelimit-limit"], path).toBeUndefined()
      }
      expect(smsCount()).toBe(before)
      // The address's budget is whole: the canonical path is its first counted call.
      const first = await requestOtpRaw("/api/v1/auth/request-otp", ip)
      expect(first.status).toBe(200)
      expect(first.headers["ratelimit-remaining"]).toBe(String(AUTH_LIMIT - 1))
      expect(smsCount()).toBe(before + 1)
    })

    it("sends no SMS by any spelling once the address is at 429", async () => {
      const ip = newIp()
      for (let i = 0; i < AUTH_LIMIT; i++)
        expect((await requestOtpRaw("/api/v1/auth/request-otp", ip)).status).toBe(200)
      const before = smsCount()
      expectRawError(await requestOtpRaw("/api/v1/auth/request-otp", ip), 429, "RATE_LIMITED")
      for (const path of spellings) {
        const response = await requestOtpRaw(path, ip)
        expect([404, 429], path).toContain(response.status)
      }
      expect(smsCount()).toBe(before)
    })

    it("counts the per-user API limit on the canonical path only: other spellings are 404 and uncounted", async () => {
      const auth = { authorization: `Bearer ${me.token}` }
      const first = await raw("GET", "/api/v1/users/me", { headers: auth })
      expect(first.status).toBe(200)
      for (const path of otherSpellings("/api/v1/users/me")) {
        const response = await raw("GET", path, { headers: auth })
        expectRawError(response, 404, "NOT_FOUND")
        expect(response.headers["ratelimit-remaining"], path).toBeUndefined()
      }
      const second = await raw("GET", "/api/v1/users/me", { headers: auth })
      expect(Number(second.headers["ratelimit-remaining"])).toBe(Number(first.headers["ratelimit-remaining"]) - 1)
    })

    it("gives the avatar's larger body limit to no other spelling of its path", async () => {
      const body = JSON.stringify({ name: "x".repeat(2 * MiB) })
      for (const path of otherSpellings("/api/v1/users/me/avatar")) {
        const response = await raw("POST", path, {
          headers: { ...json, authorization: `Bearer ${me.token}` },
          body
        })
        expectRawError(response, 404, "NOT_FOUND")
      }
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBeNull()
    })

    it.each([
      ["GET", "/api/v1/requests/"],
      ["GET", "/api/v1/seller-profiles/"],
      ["POST", "/api/v1/offers//accept"],
      ["GET", "/api/v1/conversations//messages"],
      ["GET", "/api/v1/deals/"],
      ["GET", "/health/live/"],
      ["GET", "/docs/"]
    ])("answers 404 to %s %s (an empty path id or a trailing slash), never another route", async (method, path) => {
      const response = await raw(method, path, { headers: { authorization: `Bearer ${me.token}` } })
      expectRawError(response, 404, "NOT_FOUND")
    })

    it.each([
      ["page", "%201"],
      ["page", "+1"],
      ["page", "1.0"],
      ["page", "1e0"],
      ["page", "0x1"],
      ["page", "-1"],
      ["page", "1%20"],
      ["page", ""],
      ["per_page", "%2020"],
      ["per_page", "2.5"]
    ])("refuses ?%s=%s with 400 on that parameter", async (name, value) => {
      const response = await raw("GET", `/api/v1/requests?${name}=${value}`, {
        headers: { authorization: `Bearer ${me.token}` }
      })
      expectRawError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details)).toEqual([name])
    })

    it("takes plain digits", async () => {
      const response = await api().get("/requests?page=2&per_page=5", { token: me.token })
      expect(response.status).toBe(200)
      expect(response.body.data.pagination).toMatchObject({ current_page: 2, per_page: 5 })
    })
  })

  describe("content types", () => {
    const notJson: ReadonlyArray<readonly [string, Record<string, string>, string | Uint8Array]> = [
      ["application/octet-stream", { "content-type": "application/octet-stream" }, '{"name":"Changed"}'],
      ["*/*", { "content-type": "*/*" }, '{"name":"Changed"}'],
      ["text/plain", { "content-type": "text/plain" }, '{"name":"Changed"}'],
      ["form-urlencoded", { "content-type": "application/x-www-form-urlencoded" }, "name=Changed"],
      [
        "a well-formed multipart form",
        { "content-type": "multipart/form-data; boundary=b" },
        '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nChanged\r\n--b--\r\n'
      ],
      ["multipart without a boundary", { "content-type": "multipart/form-data" }, "--b\r\nbroken"],
      ["a broken multipart body", { "content-type": "multipart/form-data; boundary=b" }, "garbage"],
      ["a malformed content type", { "content-type": "json" }, '{"name":"Changed"}'],
      ["application/jsonx", { "content-type": "application/jsonx" }, '{"name":"Changed"}'],
      ["text/json", { "content-type": "text/json" }, '{"name":"Changed"}'],
      ["no content type", {}, new TextEncoder().encode('{"name":"Changed"}')]
    ]

    const expect415 = (response: Response | RawResponse) => {
      const error = expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE", ["body"])
      expect(error.message).toBe("The content type is not supported")
      expect(error.details.body).toEqual(["Send the request body as application/json"])
    }

    let me: SignedIn
    beforeAll(async () => {
      me = await signIn()
    })

    it.each(notJson)("PUT /users/me with %s: 415, name unchanged", async (_, headers, body) => {
      const response = await api().raw.put("/users/me", {
        token: me.token,
        rawBody: body,
        headers: { ...headers, ...en }
      })
      expect415(response)
      expect((await api().get("/users/me", { token: me.token })).body.data.name).toBeNull()
    })

    it.each(notJson)("POST /auth/logout with %s: 415, session kept", async (_, headers, body) => {
      const response = await api().raw.post("/auth/logout", {
        token: me.token,
        rawBody: body,
        headers: { ...headers, ...en, ...from(newIp()) }
      })
      expect415(response)
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
    })

    it.each(notJson)("POST /auth/request-otp with %s: 415, no SMS", async (_, headers) => {
      const before = smsCount()
      const phone = newPhone()
      const body = headers["content-type"]?.includes("urlencoded")
        ? `phone_number=${encodeURIComponent(phone)}`
        : JSON.stringify({ phone_number: phone })
      const response = await api().raw.post("/auth/request-otp", {
        rawBody: body,
        headers: { ...headers, ...en, ...from(newIp()) }
      })
      expect415(response)
      expect(smsCount()).toBe(before)
    })

    it.each(notJson)("POST /requests with %s: 415, nothing created", async (_, headers, body) => {
      const response = await api().raw.post("/requests", {
        token: me.token,
        rawBody: body,
        headers: { ...headers, ...en }
      })
      expect415(response)
      expect((await api().get("/requests/my", { token: me.token })).body.data.pagination.total).toBe(0)
    })

    it.each([
      ["application/json; charset=utf-8"],
      ["APPLICATION/JSON"],
      ["application/merge-patch+json"],
      ["application/vnd.talab+json; charset=UTF-8"]
    ])("takes %s as JSON", async (contentType) => {
      const other = await signIn()
      const response = await api().raw.put("/users/me", {
        token: other.token,
        rawBody: JSON.stringify({ name: "Json" }),
        headers: { "content-type": contentType }
      })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBe("Json")
    })

    it("takes no body and no content type on an operation whose fields are all optional", async () => {
      const other = await signIn()
      expect((await api().put("/users/me", { token: other.token })).status).toBe(200)
      expect((await api().post("/auth/logout", { token: other.token, headers: from(newIp()) })).status).toBe(200)
      expect((await api().get("/users/me", { token: other.token })).status).toBe(401)
    })

    it("answers 401 before 415 without a token, and 413 before 415 for a body over 1 MiB", async () => {
      expectError(
        await api().raw.put("/users/me", { rawBody: "x", headers: { "content-type": "text/plain" } }),
        401,
        "UNAUTHORIZED"
      )
      const big = await raw("PUT", "/api/v1/users/me", {
        headers: { "content-type": "text/plain", authorization: `Bearer ${me.token}` },
        body: "x".repeat(MiB + 1)
      })
      expectRawError(big, 413, "PAYLOAD_TOO_LARGE")
    })

    it.each([
      ["application/json", json, '{"avatar":"x"}'],
      ["text/plain", { "content-type": "text/plain" }, "x"],
      ["application/octet-stream", { "content-type": "application/octet-stream" }, "\u0089PNG"]
    ])("refuses an avatar sent as %s with 415 and keeps none", async (_, headers, body) => {
      const response = await api().raw.post("/users/me/avatar", { token: me.token, rawBody: body, headers })
      expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE")
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBeNull()
    })
  })

  describe("JSON shape", () => {
    let me: SignedIn
    beforeAll(async () => {
      me = await signIn()
    })
    const nameOfMe = async () => (await api().get("/users/me", { token: me.token })).body.data.name
    const nested = (depth: number) => `{"name":"Deep","x":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`

    it("takes a body nested 64 levels deep", async () => {
      const response = await api().raw.put("/users/me", { token: me.token, rawBody: nested(64), headers: json })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBe("Deep")
    })

    it("refuses 65 levels with 400 on body, and changes nothing", async () => {
      await api().put("/users/me", { token: me.token, body: { name: "Before" } })
      const response = await api().raw.put("/users/me", {
        token: me.token,
        rawBody: nested(65),
        headers: { ...json, ...en }
      })
      const error = expectError(response, 400, "VALIDATION_ERROR", ["body"])
      expect(error.details.body).toEqual(["The JSON body is nested more than 64 levels deep"])
      expect(await nameOfMe()).toBe("Before")
    })

    it("refuses a 1 MiB body of [ with 400, on request-otp without an SMS", async () => {
      const before = smsCount()
      const response = await api().raw.post("/auth/request-otp", {
        rawBody: "[".repeat(MiB),
        headers: { ...json, ...from(newIp()) }
      })
      expectError(response, 400, "VALIDATION_ERROR", ["body"])
      expect(smsCount()).toBe(before)
    })

    it("answers a body nested too deep at the first level too deep, without waiting for the rest", async () => {
      const { hostname: host, port } = new URL(server().baseUrl)
      const socket = connect({ host, port: Number(port) })
      const head = [
        "POST /api/v1/auth/request-otp HTTP/1.1",
        `host: ${host}`,
        "content-type: application/json",
        `content-length: ${MiB}`,
        "x-forwarded-for: 198.51.100.250",
        "",
        ""
      ].join("\r\n")
      // 100 bytes of the announced megabyte: the answer must come before the client sends another byte.
      socket.write(head + "[".repeat(100))
      const answer = await new Promise<string>((resolve, reject) => {
        let text = ""
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8")
          if (text.includes("\r\n\r\n") && text.includes("}")) resolve(text)
        })
        socket.on("error", reject)
      })
      socket.destroy()
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request")
      expect(answer).toContain('"code":"VALIDATION_ERROR"')
    }, 5_000)

    it("does not count brackets inside strings as nesting", async () => {
      const name = `[{"${"[".repeat(80)}`.slice(0, 90)
      const response = await api().put("/users/me", { token: me.token, body: { name } })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBe(name)
    })

    it("parses a body once", async () => {
      // Letters only: a name with a long run of digits may read as a phone number and be refused.
      const body = JSON.stringify({ name: `Once ${crypto.randomUUID().replace(/[^a-f]/g, "")}`.slice(0, 40) })
      const parse = vi.spyOn(JSON, "parse")
      try {
        const response = await api().raw.put("/users/me", { token: me.token, rawBody: body, headers: json })
        expect(response.status).toBe(200)
        expect(parse.mock.calls.filter(([text]) => text === body)).toHaveLength(1)
      } finally {
        parse.mockRestore()
      }
    })
  })

  describe("headers", () => {
    const HSTS = "max-age=31536000; includeSubDomains"

    it("sends nosniff and HSTS on every kind of response", async () => {
      const me = await signIn()
      const responses: Array<[string, RawResponse]> = [
        ["unknown route", await raw("GET", "/nowhere")],
        ["other spelling", await raw("GET", "/API/v1/users/me")],
        ["live", await raw("GET", "/health/live")],
        ["ready", await raw("GET", "/health/ready")],
        ["docs", await raw("GET", "/docs")],
        ["openapi", await raw("GET", "/api/v1/openapi.json")],
        ["ws without upgrade", await raw("GET", "/ws")],
        ["401", await raw("GET", "/api/v1/users/me")],
        ["200", await raw("GET", "/api/v1/users/me", { headers: { authorization: `Bearer ${me.token}` } })],
        ["415", await raw("POST", "/api/v1/auth/refresh", { headers: { "content-type": "text/plain" }, body: "x" })],
        [
          "preflight",
          await raw("OPTIONS", "/api/v1/users/me", {
            headers: { origin: "https://a.example", "access-control-request-method": "GET" }
          })
        ],
        ["missing avatar", await raw("GET", "/uploads/avatars/nothing.webp")]
      ]
      for (const [what, response] of responses) {
        expect(response.headers["x-content-type-options"], what).toBe("nosniff")
        expect(response.headers["strict-transport-security"], what).toBe(HSTS)
      }
    })

    it("sends Cache-Control: no-store on every /auth/* response", async () => {
      const phone = newPhone()
      const ip = newIp()
      const responses: Array<Response> = [
        await api().post("/auth/request-otp", { body: { phone_number: phone }, headers: from(ip) }),
        await api().post("/auth/verify-otp", { body: { phone_number: phone, otp_code: "000000" }, headers: from(ip) }),
        await api().post("/auth/refresh", { body: { refresh_token: "nope" }, headers: from(ip) }),
        await api().post("/auth/logout", { headers: from(ip) })
      ]
      expect(responses.map((r) => r.status)).toEqual([200, 401, 401, 429])
      for (const response of responses) expect(response.headers.get("cache-control")).toBe("no-store")
      const me = await signIn()
      const refreshed = await api().post("/auth/refresh", {
        body: { refresh_token: me.refreshToken },
        headers: from(newIp())
      })
      expect(refreshed.status).toBe(200)
      expect(refreshed.headers.get("cache-control")).toBe("no-store")
    })

    it("puts a content policy on /docs that allows exactly the page's own scripts, and their WebAssembly", async () => {
      const response = await fetch(`${server().baseUrl}/docs`)
      expect(response.status).toBe(200)
      const html = await response.text()
      const policy = response.headers.get("content-security-policy") ?? ""
      const directives = new Map(
        policy.split(";").map((d) => {
          const [name = "", ...values] = d.trim().split(/\s+/)
          return [name, values] as const
        })
      )
      expect(directives.get("default-src")).toEqual(["'none'"])
      // Each script the page runs: one served by this server is allowed as 'self', an inline one by its hash.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(
        ([, attributes]) => !/application\/json/.test(attributes ?? "")
      )
      expect(scripts.length).toBeGreaterThan(0)
      const allowed = scripts.map(([, attributes = "", body = ""]) =>
        /\bsrc\s*=\s*["']\//.test(attributes)
          ? "'self'"
          : `'sha256-${createHash("sha256").update(body, "utf8").digest("base64")}'`
      )
      expect(allowed).toContain("'self'")
      // And WebAssembly, which the reference parses the document with; no other evaluation.
      expect(directives.get("script-src")?.sort()).toEqual([...new Set(allowed), "'wasm-unsafe-eval'"].sort())
      expect(directives.get("script-src")).not.toContain("'unsafe-inline'")
      expect(directives.get("script-src")).not.toContain("'unsafe-eval'")
      // Every font the reference loads comes from an origin the policy allows.
      const fontOrigins = new Set([...html.matchAll(/url\((https:\/\/[^/)]+)\/[^)]*\.woff2\)/g)].map(([, o]) => o))
      for (const origin of fontOrigins) expect(directives.get("font-src")).toContain(origin)
      // It injects its styles, and sends "try it" requests to this API.
      expect(directives.get("style-src")).toContain("'unsafe-inline'")
      expect(directives.get("connect-src")).toContain("'self'")
      expect(directives.get("frame-ancestors")).toEqual(["'none'"])
    })
  })
})
