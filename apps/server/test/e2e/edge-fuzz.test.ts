import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { backends, client, newPhone, signIn, useServer } from "../support/harness.js"
import { type RawResponse, rawRequest } from "../support/raw-http.js"

/*
 * Whatever arrives, the edge answers without a 5xx, and every 4xx is the envelope: for every operation of the
 * server's own OpenAPI document, random path ids, query values, content types and bodies (bytes, JSON of any
 * shape, deep nesting, huge numbers, wrong types, NUL and other unicode, multipart), with no token, a bad one,
 * a user's and an admin's, over real HTTP.
 */

const RUNS = Number(process.env.EDGE_FUZZ_RUNS ?? 150)
const ADMIN_PHONE = "+966551239999"

interface Operation {
  readonly method: string
  readonly path: string
  readonly query: ReadonlyArray<string>
  readonly fields: ReadonlyArray<string>
}

const operationsOf = (document: any): ReadonlyArray<Operation> =>
  Object.entries<Record<string, any>>(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      query: (operation.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => p.name),
      fields: Object.keys(operation.requestBody?.content?.["application/json"]?.schema?.properties ?? {})
    }))
  )

/** Values of every JSON type, the awkward ones made likely. */
const awkwardValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -0, 1e308, -1e308, 5e-324, 1e-9, 1.005, 2 ** 53 + 1, "", "\u0000", "a\u0000b", " "),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ maxLength: 5000 }),
  fc.double(),
  fc.integer(),
  fc.uuid(),
  fc.jsonValue({ maxDepth: 3 })
)

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom("[", '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`)

const multipart = fc
  .tuple(fc.constantFrom("avatar", "name", "x"), fc.uint8Array({ maxLength: 300 }))
  .map(([name, bytes]) => ({
    contentType: "multipart/form-data; boundary=fuzz",
    body: Buffer.concat([
      Buffer.from(
        `--fuzz\r\nContent-Disposition: form-data; name="${name}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
      ),
      Buffer.from(bytes),
      Buffer.from("\r\n--fuzz--\r\n")
    ])
  }))

const contentType = fc.oneof(
  fc.constantFrom(
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "application/problem+json",
    "text/plain",
    "application/octet-stream",
    "*/*",
    "multipart/form-data",
    "multipart/form-data; boundary=fuzz",
    "application/x-www-form-urlencoded",
    "json",
    ""
  ),
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/)
)

const bodyFor = (fields: ReadonlyArray<string>) =>
  fc.oneof(
    fc.constant(undefined),
    fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
    fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
    deepNesting,
    fields.length === 0
      ? fc.constant("{}")
      : fc
          .dictionary(fc.constantFrom(...fields), awkwardValue, { maxKeys: fields.length })
          .map((value) => JSON.stringify(value)),
    fc.constantFrom('{"price": 1e400}', '{"a": 1', "null", "[]", '"text"', "\u0000", '{"\u0000": "\u0000"}')
  )

const pathValue = (known: ReadonlyArray<string>) =>
  fc.oneof(
    fc.uuid(),
    fc.constantFrom(...known),
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,40}$/),
    fc.string({ maxLength: 20 }).map(encodeURIComponent)
  )

const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.string({ maxLength: 20 }),
  fc.constantFrom("", "1", " 1", "1e3", "9".repeat(30), "active", "closed", "buyer", "phone", "2025-01-01T00:00:00Z")
)

const isEnvelope = (body: any) =>
  body?.success === false &&
  typeof body.error?.code === "string" &&
  typeof body.error.message === "string" &&
  (body.error.details === undefined || (typeof body.error.details === "object" && body.error.details !== null))

describe.each(backends)("every operation of the OpenAPI document, fuzzed, on %s", (backend) => {
  const server = useServer(backend, {
    settings: {
      rateLimits: {
        authPerMinute: 1_000_000,
        otpPer10Minutes: 3,
        apiPerMinute: 1_000_000,
        wsMessagesPerMinute: 50,
        wsHandshakesPerMinute: 1_000
      },
      adminPhoneNumbers: [ADMIN_PHONE]
    }
  })
  let operations: ReadonlyArray<Operation> = []
  const tokens: Record<"user" | "admin", string> = { user: "", admin: "" }
  let knownIds: Array<string> = []

  beforeAll(async () => {
    const document = await (await fetch(`${server().apiUrl}/openapi.json`)).json()
    operations = operationsOf(document)
    const api = client(server())
    const user = await signIn(server(), api, newPhone())
    const admin = await signIn(server(), api, ADMIN_PHONE)
    tokens.user = user.token
    tokens.admin = admin.token
    const request = await api.post("/requests", {
      token: user.token,
      body: { category: "phone", budget_min: 100, budget_max: 200, location_district: "Olaya" }
    })
    knownIds = [user.userId, admin.userId, request.body.data.id]
  })

  it("never answers 5xx, and answers every 4xx in the envelope", async () => {
    expect(operations.length).toBeGreaterThan(30)
    const seen = new Set<string>()
    const request = fc.constantFrom(...operations).chain((operation) =>
      fc.record({
        operation: fc.constant(operation),
        pathValues: fc.array(pathValue(knownIds), { minLength: 2, maxLength: 2 }),
        query: fc.dictionary(fc.constantFrom("x", ...operation.query), queryValue, { maxKeys: 3 }),
        token: fc.constantFrom("none", "garbage", "user", "admin") as fc.Arbitrary<
          "none" | "garbage" | "user" | "admin"
        >,
        payload: fc.oneof(
          { weight: 4, arbitrary: fc.record({ contentType, body: bodyFor(operation.fields) }) },
          { weight: 1, arbitrary: multipart }
        )
      })
    )
    await fc.assert(
      fc.asyncProperty(request, async ({ operation, pathValues, query, token, payload }) => {
        let index = 0
        const path = operation.path.replace(/\{[^}]+\}/g, () => pathValues[index++ % pathValues.length]!)
        const search = new URLSearchParams(query as Record<string, string>).toString()
        const headers: Record<string, string> = {}
        if (payload.contentType !== undefined) headers["content-type"] = payload.contentType
        if (token === "garbage") headers.authorization = "Bearer not.a.token"
        else if (token !== "none") headers.authorization = `Bearer ${tokens[token]}`
        const target = search === "" ? path : `${path}?${search}`
        // A request left unanswered is a failure that names it, not a test that times out.
        let unanswered: ReturnType<typeof setTimeout> | undefined
        const response: RawResponse = await Promise.race([
          rawRequest(server().baseUrl, operation.method, target, {
            headers,
            ...(payload.body === undefined ? {} : { body: payload.body })
          }),
          new Promise<never>((_, reject) => {
            unanswered = setTimeout(
              () => reject(new Error(`no answer in 20 s: ${operation.method} ${target} (${payload.contentType})`)),
              20_000
            )
          })
        ]).finally(() => clearTimeout(unanswered))
        seen.add(`${operation.method} ${operation.path}`)
        const what = `${operation.method} ${path} (${payload.contentType}) → ${response.status} ${JSON.stringify(response.body)?.slice(0, 200)}`
        expect(response.status, what).toBeLessThan(500)
        if (response.status >= 400) expect(isEnvelope(response.body), what).toBe(true)
        // A logout with the user's or admin's token ends that session: sign in again for the next runs.
        if (
          operation.path.endsWith("/auth/logout") &&
          response.status === 200 &&
          (token === "user" || token === "admin")
        ) {
          tokens[token] = (await signIn(server(), client(server()), token === "admin" ? ADMIN_PHONE : newPhone())).token
        }
      }),
      // Shrinking re-sends requests that may each wait out the 20 s: the first failure is reported as found, with
      // its seed, rather than lost to the test's own timeout.
      { numRuns: RUNS, endOnFailure: true }
    )
    expect(seen.size).toBeGreaterThan(operations.length / 2)
  }, 120_000)
})
