import type { TestServer } from "@talab/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ARABIC, expectError, UUID } from "../support/fixtures.js"
import {
  backends,
  client,
  relaxedLimits,
  signIn,
  startServer,
  useServer,
  useServerWithDatabase
} from "../support/harness.js"
import { runSql } from "../support/postgres.js"

const json = { "content-type": "application/json" }
const MiB = 1024 * 1024

/** The operations of the foundation, as the OpenAPI document names them. */
const foundationOperations = [
  ["/api/v1/auth/request-otp", "post", "200"],
  ["/api/v1/auth/verify-otp", "post", "200"],
  ["/api/v1/auth/refresh", "post", "200"],
  ["/api/v1/auth/logout", "post", "200"],
  ["/api/v1/users/me", "get", "200"],
  ["/api/v1/users/me", "put", "200"],
  ["/api/v1/users/me/avatar", "post", "200"],
  ["/api/v1/device-tokens", "post", "201"]
] as const

describe.each(backends)("platform on %s", (backend) => {
  const server = useServer(backend, { settings: relaxedLimits })
  const api = () => client(server())

  describe("health", () => {
    it("GET /health/live answers 200", async () => {
      const response = await fetch(`${server().baseUrl}/health/live`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ status: "ok" })
    })

    it("GET /health/ready answers 200 while the database answers", async () => {
      const response = await fetch(`${server().baseUrl}/health/ready`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ status: "ok", database: "up" })
    })
  })

  describe("OpenAPI and docs", () => {
    let document: any
    beforeAll(async () => {
      const response = await fetch(`${server().apiUrl}/openapi.json`)
      expect(response.status).toBe(200)
      document = await response.json()
    })

    it("is OpenAPI 3.1", () => {
      expect(document.openapi).toMatch(/^3\.1\./)
      expect(document.info.title).toBe("Talab API")
    })

    it.each(foundationOperations)("documents %s %s with its request and its success body", (path, method, success) => {
      const operation = document.paths[path]?.[method]
      expect(operation).toBeDefined()
      const body = operation.responses[success].content["application/json"].schema
      expect(body.properties.success).toBeDefined()
      expect(body.properties.data).toBeDefined()
      if (method !== "get") expect(operation.requestBody).toBeDefined()
    })

    it("names the fields of each request and each answer", () => {
      const requestFields = (path: string, method: string) => {
        const content = document.paths[path][method].requestBody.content
        return Object.keys((content["application/json"] ?? content["multipart/form-data"]).schema.properties).sort()
      }
      const dataFields = (path: string, method: string, status = "200") =>
        Object.keys(
          document.paths[path][method].responses[status].content["application/json"].schema.properties.data
            .properties ?? {}
        ).sort()
      expect(requestFields("/api/v1/auth/request-otp", "post")).toEqual(["phone_number"])
      expect(requestFields("/api/v1/auth/verify-otp", "post")).toEqual(["device", "otp_code", "phone_number"])
      expect(requestFields("/api/v1/auth/refresh", "post")).toEqual(["refresh_token"])
      expect(requestFields("/api/v1/auth/logout", "post")).toEqual(["device_token"])
      expect(requestFields("/api/v1/users/me", "put")).toEqual(["language", "name"])
      expect(requestFields("/api/v1/users/me/avatar", "post")).toEqual(["avatar"])
      expect(requestFields("/api/v1/device-tokens", "post")).toEqual(["platform", "push_token"])
      expect(dataFields("/api/v1/auth/request-otp", "post")).toEqual(["expires_at", "message"])
      expect(dataFields("/api/v1/auth/verify-otp", "post")).toEqual(["tokens", "user"])
      expect(dataFields("/api/v1/auth/refresh", "post")).toEqual(["access_token", "expires_in"])
      expect(dataFields("/api/v1/users/me", "get")).toEqual(
        ["avatar_url", "created_at", "id", "is_admin", "language", "name", "phone_number", "seller_profile"].sort()
      )
      expect(dataFields("/api/v1/users/me/avatar", "post")).toEqual(["avatar_url"])
      expect(dataFields("/api/v1/device-tokens", "post", "201")).toEqual(["created_at", "id", "platform"])
      expect(dataFields("/api/v1/auth/sessions", "get")).toEqual(["sessions"])
      expect(dataFields("/api/v1/auth/sessions", "delete")).toEqual(["ended"])
    })

    it("says the logout body is optional and the avatar is one binary file", () => {
      expect(document.paths["/api/v1/auth/logout"].post.requestBody.required).toBe(false)
      const avatar = document.paths["/api/v1/users/me/avatar"].post.requestBody.content["multipart/form-data"].schema
      expect(avatar.properties.avatar).toEqual({ type: "string", format: "binary" })
    })

    it("documents every 400 as the error envelope, never the framework's decode error", () => {
      expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
      for (const [path, method] of foundationOperations) {
        const schema = document.paths[path][method].responses["400"].content["application/json"].schema
        expect(schema).toEqual({ $ref: "#/components/schemas/ValidationErrorResponse" })
      }
      const envelope = document.components.schemas.ValidationErrorResponse
      expect(envelope.properties.success).toEqual({ type: "boolean", enum: [false] })
      expect(Object.keys(envelope.properties.error.properties).sort()).toEqual(["code", "details", "message"])
    })

    it("documents the other errors each operation can answer", () => {
      const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses)
      expect(statuses("/api/v1/auth/verify-otp", "post")).toEqual(expect.arrayContaining(["401", "429", "500"]))
      expect(statuses("/api/v1/auth/request-otp", "post")).toEqual(expect.arrayContaining(["400", "429"]))
      expect(statuses("/api/v1/users/me/avatar", "post")).toEqual(expect.arrayContaining(["401", "413", "415"]))
      expect(statuses("/api/v1/users/me", "get")).toEqual(expect.arrayContaining(["401", "429"]))
    })

    it("GET /docs serves a reference page that renders the served document, with no inline script", async () => {
      const response = await fetch(`${server().baseUrl}/docs`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/html/)
      const html = await response.text()
      expect(html).toContain('data-url="/api/v1/openapi.json"')
      const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
      expect(scripts.length).toBe(2)
      for (const [, , body] of scripts) expect(body!.trim()).toBe("")
      const bundle = await fetch(`${server().baseUrl}/docs/scalar.js`)
      expect(bundle.status).toBe(200)
      expect(bundle.headers.get("content-type")).toMatch(/javascript/)
      expect((await bundle.text()).length).toBeGreaterThan(100_000)
    })

    it("serves the WebSocket protocol and push payloads as AsyncAPI 3 at /api/v1/asyncapi.json", async () => {
      const response = await fetch(`${server().apiUrl}/asyncapi.json`)
      expect(response.status).toBe(200)
      const asyncApi = await response.json()
      expect(asyncApi.asyncapi).toBe("3.1.0")
      expect(asyncApi.channels.chat.address).toBe("/ws")
    })
  })

  describe("unknown routes and bodies", () => {
    it.each([
      ["GET", "/api/v1/nothing-here"],
      ["GET", "/nothing-here"],
      ["DELETE", "/api/v1/users/me/avatar"],
      ["GET", "/api/v1/auth/request-otp"]
    ])("%s %s answers the 404 NOT_FOUND envelope", async (method, path) => {
      const response = await fetch(`${server().baseUrl}${path}`, { method, headers: { "accept-language": "en" } })
      const body = await response.json()
      expectError({ status: response.status, body }, 404, "NOT_FOUND")
      expect(body.error.message).toBe("The resource was not found")
    })

    it("answers 415 to a DELETE whose body is not JSON, before anything parses it", async () => {
      const me = await signIn(server(), api())
      const response = await api().raw.delete("/users/me", {
        token: me.token,
        rawBody: '--fuzz\r\nContent-Disposition: form-data; name="otp_code"\r\n\r\n123456\r\n--fuzz--\r\n',
        headers: { "content-type": "multipart/form-data" }
      })
      expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE")
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
    })

    it("answers 413 PAYLOAD_TOO_LARGE to a JSON body over 1 MiB, and the client can go on", async () => {
      const me = await signIn(server(), api())
      const big = JSON.stringify({ name: "x".repeat(MiB) })
      expectError(
        await api().raw.put("/users/me", { token: me.token, rawBody: big, headers: json }),
        413,
        "PAYLOAD_TOO_LARGE"
      )
      const bigOtp = JSON.stringify({ phone_number: "+966501234567", padding: "x".repeat(MiB) })
      expectError(
        await api().raw.post("/auth/request-otp", { rawBody: bigOtp, headers: json }),
        413,
        "PAYLOAD_TOO_LARGE"
      )
      expect((await api().get("/users/me", { token: me.token })).body.data.name).toBeNull()
    })

    it("takes a JSON body just under 1 MiB", async () => {
      const me = await signIn(server(), api())
      const body = JSON.stringify({ name: "Near the limit", padding: "x".repeat(MiB - 100) })
      expect(Buffer.byteLength(body)).toBeLessThan(MiB)
      const response = await api().raw.put("/users/me", { token: me.token, rawBody: body, headers: json })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBe("Near the limit")
    })

    it("reads application/json with a charset as JSON", async () => {
      const me = await signIn(server(), api())
      const response = await api().raw.put("/users/me", {
        token: me.token,
        rawBody: JSON.stringify({ name: "Charset" }),
        headers: { "content-type": "application/json; charset=utf-8" }
      })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBe("Charset")
    })
  })

  describe("language", () => {
    const verifyError = (acceptLanguage?: string) =>
      api().post("/auth/verify-otp", {
        body: { phone_number: "+966501234567", otp_code: "12" },
        ...(acceptLanguage === undefined ? {} : { headers: { "accept-language": acceptLanguage } })
      })

    it.each([
      ["en;q=0.9, ar;q=0.8", "en"],
      ["fr, ar;q=0.5", "ar"],
      ["ar;q=0.2, en;q=0.7", "en"],
      ["en-GB", "en"],
      ["ar-SA,en;q=0.9", "ar"],
      ["fr, de", "ar"],
      ["en;q=0", "ar"],
      [undefined, "ar"]
    ])("Accept-Language %s answers in %s, message and details alike", async (acceptLanguage, language) => {
      const error = expectError(await verifyError(acceptLanguage), 400, "VALIDATION_ERROR", ["otp_code"])
      const expected =
        language === "en"
          ? { message: "The data sent is not valid", detail: "The code must be exactly 6 digits" }
          : { message: "البيانات المرسلة غير صالحة", detail: "رمز التحقق يتكون من 6 أرقام" }
      expect({ message: error.message, detail: error.details.otp_code![0] }).toEqual(expected)
    })

    it("without Accept-Language, follows the signed-in user's language; the header wins over it", async () => {
      const me = await signIn(server(), api())
      await api().put("/users/me", { token: me.token, body: { language: "en" } })
      const own = expectError(
        await api().raw.put("/users/me", { token: me.token, body: { language: "xx" } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(own.message).toBe("The data sent is not valid")
      expect(own.details.language).toEqual(["Must be one of: ar, en"])
      const headerWins = expectError(
        await api().raw.put("/users/me", {
          token: me.token,
          body: { language: "xx" },
          headers: { "accept-language": "ar" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(headerWins.message).toMatch(ARABIC)
      expect(headerWins.details.language![0]).toMatch(ARABIC)
      const unsupported = expectError(
        await api().raw.put("/users/me", {
          token: me.token,
          body: { language: "xx" },
          headers: { "accept-language": "fr" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(unsupported.message).toBe("The data sent is not valid")
    })

    it("localizes success messages too", async () => {
      const english = await api().post("/auth/request-otp", {
        body: { phone_number: "+966501230001" },
        headers: { "accept-language": "en;q=0.9, ar;q=0.8" }
      })
      expect(english.body.data.message).toBe("A verification code has been sent")
      const arabic = await api().post("/auth/request-otp", { body: { phone_number: "+966501230002" } })
      expect(arabic.body.data.message).toMatch(ARABIC)
    })
  })

  describe("request ids and logs", () => {
    it("echoes a given X-Request-Id and makes one when there is none", async () => {
      const given = await fetch(`${server().baseUrl}/health/live`, { headers: { "x-request-id": "client-id.42" } })
      expect(given.headers.get("x-request-id")).toBe("client-id.42")
      const made = await fetch(`${server().baseUrl}/health/live`)
      expect(made.headers.get("x-request-id")).toMatch(UUID)
      const another = await fetch(`${server().baseUrl}/health/live`)
      expect(another.headers.get("x-request-id")).not.toBe(made.headers.get("x-request-id"))
    })

    it("replaces an X-Request-Id that could forge log lines", async () => {
      for (const unsafe of ["a b", "x".repeat(200), 'id"=1']) {
        const response = await fetch(`${server().baseUrl}/health/live`, { headers: { "x-request-id": unsafe } })
        expect(response.headers.get("x-request-id")).toMatch(UUID)
      }
    })

    it("puts the request id on error responses and unknown routes too", async () => {
      const response = await fetch(`${server().apiUrl}/users/me`, { headers: { "x-request-id": "err-1" } })
      expect(response.status).toBe(401)
      expect(response.headers.get("x-request-id")).toBe("err-1")
      const missing = await fetch(`${server().apiUrl}/nowhere`, { headers: { "x-request-id": "err-2" } })
      expect(missing.headers.get("x-request-id")).toBe("err-2")
    })

    it("logs one line per request with method, path, status, duration and request id", async () => {
      const requestId = `log-${crypto.randomUUID()}`
      const response = await fetch(`${server().apiUrl}/users/me?x=1`, { headers: { "x-request-id": requestId } })
      expect(response.status).toBe(401)
      await response.text()
      const lines = server()
        .logs.matching({ request_id: requestId })
        .filter((line) => line.message === "request")
      expect(lines).toHaveLength(1)
      expect(lines[0]!.level).toBe("INFO")
      expect(lines[0]!.annotations).toMatchObject({ method: "GET", path: "/api/v1/users/me", status: 401 })
      expect(typeof lines[0]!.annotations.duration_ms).toBe("number")
      expect(lines[0]!.annotations.duration_ms as number).toBeGreaterThanOrEqual(0)
    })

    it("never logs the phone number's code or a token in the request line", async () => {
      const me = await signIn(server(), api())
      const requestId = `log-${crypto.randomUUID()}`
      await api().get("/users/me", { token: me.token, headers: { "x-request-id": requestId } })
      const line = JSON.stringify(server().logs.matching({ request_id: requestId }))
      expect(line).not.toContain(me.token)
    })
  })
})

describe("CORS", () => {
  let restricted: TestServer
  let open: TestServer
  beforeAll(async () => {
    restricted = await startServer({
      settings: { corsOrigins: ["https://app.talab.example", "https://admin.talab.example"] }
    })
    open = await startServer({})
  }, 60_000)
  afterAll(async () => {
    await restricted?.close()
    await open?.close()
  })

  it("names an allowed origin, and only that one", async () => {
    for (const origin of ["https://app.talab.example", "https://admin.talab.example"]) {
      const response = await fetch(`${restricted.baseUrl}/health/live`, { headers: { origin } })
      expect(response.headers.get("access-control-allow-origin")).toBe(origin)
    }
  })

  it("gives an origin not in CORS_ORIGINS no access-control-allow-origin, on requests and preflights", async () => {
    const origin = "https://evil.example"
    const response = await fetch(`${restricted.apiUrl}/users/me`, { headers: { origin } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
    const preflight = await fetch(`${restricted.apiUrl}/users/me`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "authorization" }
    })
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("answers an allowed preflight with the methods and headers the API needs", async () => {
    const preflight = await fetch(`${restricted.apiUrl}/users/me`, {
      method: "OPTIONS",
      headers: { origin: "https://app.talab.example", "access-control-request-method": "PUT" }
    })
    expect(preflight.status).toBeLessThan(300)
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.talab.example")
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PUT")
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization")
    // The SDK sends it with POSTs it may retry.
    expect(preflight.headers.get("access-control-allow-headers")).toContain("idempotency-key")
  })

  it("serves requests without an Origin header as usual", async () => {
    const api = client(restricted)
    const me = await signIn(restricted, api)
    const response = await api.get("/users/me", { token: me.token })
    expect(response.status).toBe(200)
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("allows any origin by default (CORS_ORIGINS=*)", async () => {
    const response = await fetch(`${open.baseUrl}/health/live`, { headers: { origin: "https://anyone.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("lets browsers read the rate-limit, request-id and Idempotent-Replayed headers", async () => {
    const response = await fetch(`${restricted.apiUrl}/auth/request-otp`, {
      method: "POST",
      headers: { origin: "https://app.talab.example", ...json },
      body: JSON.stringify({ phone_number: "+966501230003" })
    })
    const exposed = response.headers.get("access-control-expose-headers") ?? ""
    for (const header of [
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "retry-after",
      "x-request-id",
      "idempotent-replayed"
    ]) {
      expect(exposed).toContain(header)
    }
  })
})

describe("database faults on postgres", () => {
  const { server, databaseUrl } = useServerWithDatabase("postgres", { settings: relaxedLimits })
  const api = () => client(server())
  const admin = (statement: string) =>
    runSql(process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", (sql) =>
      sql.unsafe(statement)
    )
  const databaseName = () => new URL(databaseUrl()!).pathname.slice(1)

  it("answers an unknown path 404 NOT_FOUND and logs it as a request, not as an error", async () => {
    for (const path of ["/api/v1/no-such-thing", "/api/v1/health/live", "/wp-login.php"]) {
      const requestId = `unknown-${crypto.randomUUID()}`
      const response = await fetch(`${server().baseUrl}${path}`, { headers: { "x-request-id": requestId } })
      expect(response.status, path).toBe(404)
      expect((await response.json()).error.code).toBe("NOT_FOUND")
      const logged = server().logs.matching({ request_id: requestId })
      expect(logged.find((line) => line.message === "request")?.annotations.status, path).toBe(404)
      expect(
        logged.filter((line) => line.level === "ERROR"),
        path
      ).toEqual([])
    }
  })

  it("answers 500 INTERNAL_ERROR without internals when the database fails a query, and logs the cause", async () => {
    const me = await signIn(server(), api())
    await runSql(databaseUrl()!, (sql) => sql`ALTER TABLE device_tokens RENAME TO device_tokens_away`)
    try {
      const requestId = `fault-${crypto.randomUUID()}`
      const response = await api().post("/device-tokens", {
        token: me.token,
        body: { platform: "ios", push_token: "fault" },
        headers: { "x-request-id": requestId, "accept-language": "en" }
      })
      expect(response.status).toBe(500)
      expect(response.body).toEqual({
        success: false,
        error: { code: "INTERNAL_ERROR", message: "Something went wrong on the server", details: {} }
      })
      expect(JSON.stringify(response.body)).not.toMatch(/device_tokens|relation|SqlError|stack/i)
      const logged = server().logs.matching({ request_id: requestId })
      const defect = logged.find((line) => line.message === "unhandled defect")
      expect(defect?.level).toBe("ERROR")
      expect(defect?.annotations.error).toMatch(/relation "device_tokens" does not exist/)
      expect(logged.find((line) => line.message === "request")?.annotations.status).toBe(500)
    } finally {
      await runSql(databaseUrl()!, (sql) => sql`ALTER TABLE device_tokens_away RENAME TO device_tokens`)
    }
    expect(
      (await api().post("/device-tokens", { token: me.token, body: { platform: "ios", push_token: "fault" } })).status
    ).toBe(201)
  })

  it("answers 503 on /health/ready while the database refuses connections, and 200 once it is back", async () => {
    const ready = () => fetch(`${server().baseUrl}/health/ready`)
    expect((await ready()).status).toBe(200)
    await admin(`ALTER DATABASE "${databaseName()}" WITH ALLOW_CONNECTIONS false`)
    try {
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName()}'`)
      const down = await ready()
      expect(down.status).toBe(503)
      expect(await down.json()).toEqual({ status: "unavailable", database: "down" })
      expect((await fetch(`${server().baseUrl}/health/live`)).status).toBe(200)
    } finally {
      await admin(`ALTER DATABASE "${databaseName()}" WITH ALLOW_CONNECTIONS true`)
    }
    expect((await ready()).status).toBe(200)
  })
})

describe("the request line at LOG_LEVEL=warning on postgres", () => {
  const { server, databaseUrl } = useServerWithDatabase("postgres", {
    settings: { ...relaxedLimits, logLevel: "warning" }
  })
  const admin = (statement: string) =>
    runSql(process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", (sql) =>
      sql.unsafe(statement)
    )
  const requestLines = (requestId: string) =>
    server()
      .logs.matching({ request_id: requestId })
      .filter((line) => line.message === "request")
  const get = (url: string, requestId: string) => fetch(url, { headers: { "x-request-id": requestId } })

  it("leaves out the lines of answered requests and keeps those of 503s (warning) and 500s (error)", async () => {
    const answered = `quiet-${crypto.randomUUID()}`
    expect((await get(`${server().apiUrl}/users/me`, answered)).status).toBe(401)
    expect((await get(`${server().apiUrl}/no-such-thing`, answered)).status).toBe(404)
    expect(requestLines(answered)).toEqual([])

    const me = await signIn(server(), client(server()))
    await runSql(databaseUrl()!, (sql) => sql`ALTER TABLE device_tokens RENAME TO device_tokens_away`)
    const failed = `fault-${crypto.randomUUID()}`
    try {
      const response = await client(server()).post("/device-tokens", {
        token: me.token,
        body: { platform: "ios", push_token: "fault" },
        headers: { "x-request-id": failed }
      })
      expect(response.status).toBe(500)
    } finally {
      await runSql(databaseUrl()!, (sql) => sql`ALTER TABLE device_tokens_away RENAME TO device_tokens`)
    }
    expect(requestLines(failed).map((line) => [line.level, line.annotations.status])).toEqual([["ERROR", 500]])

    const databaseName = new URL(databaseUrl()!).pathname.slice(1)
    const unavailable = `down-${crypto.randomUUID()}`
    await admin(`ALTER DATABASE "${databaseName}" WITH ALLOW_CONNECTIONS false`)
    try {
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName}'`)
      expect((await get(`${server().baseUrl}/health/ready`, unavailable)).status).toBe(503)
    } finally {
      await admin(`ALTER DATABASE "${databaseName}" WITH ALLOW_CONNECTIONS true`)
    }
    expect(requestLines(unavailable).map((line) => [line.level, line.annotations.status])).toEqual([["WARN", 503]])
  })
})
