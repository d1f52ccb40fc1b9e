import { snakeCase } from "@talab/core"
import { Either, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Api, ClientFrame, type PathProblem, problemsOf, texts, translate } from "../src/index.js"

/*
 * The field rules (decisions.md section 2, and the text and money rules of docs/DECISIONS.md) as the contract's own
 * schemas decode them: the payload and query schemas are taken from the endpoints of `Api`, so a change to
 * an endpoint's schema shows here. The server answers exactly these problems (it decodes a failed request
 * again with the same schemas, `DecodeFailure.ts`), as 400 VALIDATION_ERROR `details` keyed by the problem's
 * path. What only the server can show (body parsing, the language chosen, nothing written, stored bytes, the
 * defaults a handler fills in) stays end to end, in apps/server/test/e2e/marketplace-rules.test.ts and
 * edge-values.test.ts.
 */

// ---------------------------------------------------------------------------------------------------------------
// The schemas, from the contract's endpoints

type Input = Schema.Schema<unknown, unknown>

/** The contract's endpoint with this method and path (as the routes write them: `/deals/:id/cancel`). */
const endpointOf = (method: string, path: string) => {
  for (const group of Object.values(Api.groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      if (endpoint.method === method && endpoint.path === `/api/v1${path}`) return endpoint
    }
  }
  throw new Error(`no endpoint ${method} ${path} in the contract`)
}

/** The JSON body schema of an endpoint. */
const payloadOf = (method: "POST" | "PUT", path: string): Input =>
  Option.getOrThrowWith(
    endpointOf(method, path).payloadSchema,
    () => new Error(`${method} ${path} has no payload`)
  ) as unknown as Input

/** The query schema of an endpoint. */
const urlParamsOf = (path: string): Input =>
  Option.getOrThrowWith(
    endpointOf("GET", path).urlParamsSchema,
    () => new Error(`GET ${path} has no query`)
  ) as unknown as Input

/** A query string as the server hands it to the schema (each parameter a string). */
const query = (search: string): Record<string, string> => Object.fromEntries(new URLSearchParams(search))

const decode = (schema: Input, input: unknown) => Schema.decodeUnknownEither(schema)(input)

/** The problems of decoding `input` with `schema`, none when it decodes. */
const problemsIn = (schema: Input, input: unknown): ReadonlyArray<PathProblem> =>
  decode(schema, input).pipe(
    Either.flip,
    Either.map((error) => problemsOf(error.issue)),
    Either.getOrElse(() => [])
  )

/** The `details` key of a problem, as the REST answer writes it. */
const fieldOf = (problem: PathProblem) => (problem.path.length > 0 ? problem.path.map(String).join(".") : "body")

/**
 * The fields a refusal names. A payload that may be absent (PUT /users/me) is a union with null: its
 * "not null" failure at the body itself is noise the REST details drop when a field failed, and so it is here.
 */
const fieldsNamed = (problems: ReadonlyArray<PathProblem>) => {
  const fields = new Set(problems.map(fieldOf))
  if (fields.size > 1) fields.delete("body")
  return [...fields].sort()
}

/** A problem: its catalogue key, and its parameters when it has some. */
const problem = (key: string, params?: Record<string, string | number>) => ({ key, ...(params ? { params } : {}) })
type Expected = ReturnType<typeof problem>

/**
 * Asserts that decoding fails, that the refusal names exactly `field` (and `alsoFields`), and that the
 * problem at `field` is the expected one.
 */
const expectRefused = (
  schema: Input,
  input: unknown,
  field: string,
  expected: Expected,
  alsoFields: ReadonlyArray<string> = []
) => {
  const problems = problemsIn(schema, input)
  expect(Either.isLeft(decode(schema, input)), "the input decodes").toBe(true)
  expect(fieldsNamed(problems), JSON.stringify(problems)).toEqual([field, ...alsoFields].sort())
  expect(problems, JSON.stringify(problems)).toContainEqual({
    path: field === "body" ? [] : field.split("."),
    ...expected
  })
}

/**
 * A decoded body with its fields named as on the wire: a payload decodes to its use case's input (camelCase), and
 * the expectations here read like the bodies sent.
 */
const wireNamed = (decoded: unknown): unknown =>
  typeof decoded === "object" && decoded !== null
    ? Object.fromEntries(Object.entries(decoded).map(([key, value]) => [snakeCase(key), value]))
    : decoded

/** Asserts that `input` decodes, and that the decoded value has the `expected` fields. */
const expectDecodes = (schema: Input, input: unknown, expected: Record<string, unknown>) => {
  const decoded = decode(schema, input)
  if (Either.isLeft(decoded)) throw new Error(`refused: ${JSON.stringify(problemsOf(decoded.left.issue))}`)
  expect(wireNamed(decoded.right)).toMatchObject(expected)
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies: the shapes of apps/server/test/support/marketplace-fixtures.ts, with fixed ids

const ID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
const OTHER_ID = "9b2f6c1a-7d3e-4f5a-8b9c-0d1e2f3a4b5c"

type Body = Record<string, unknown>
const long = (length: number) => "x".repeat(length)
const without = (body: Body, key: string) => {
  const { [key]: _, ...rest } = body
  return rest
}

const requestBody = (overrides: Body = {}): Body => ({
  category: "phone",
  product_brand: "Apple",
  product_model: "iPhone 15 Pro",
  condition_pref: "used",
  budget_min: 3000,
  budget_max: 4500,
  location_district: "Al Olaya",
  location_city: "Riyadh",
  notes: "256 GB, any colour",
  ...overrides
})
const offerBody = (overrides: Body = {}): Body => ({
  request_id: ID,
  price: 4000,
  availability: "Available today",
  condition_notes: "Like new, battery 95%",
  warranty_notes: "3 months shop warranty",
  ...overrides
})
const profileBody = (overrides: Body = {}): Body => ({
  business_name: "Olaya Mobiles",
  location_district: "Al Olaya",
  location_city: "Riyadh",
  bio: "New and used phones",
  ...overrides
})
const cancelBody = (overrides: Body = {}): Body => ({
  reason: "Changed my mind",
  description: "Found one",
  ...overrides
})
const ratingBody = (overrides: Body = {}): Body => ({
  deal_id: ID,
  rating: 5,
  review_text: "Quick and fair",
  ...overrides
})
const reportBody = (overrides: Body = {}): Body => ({
  reported_user_id: ID,
  reason: "scam",
  deal_id: OTHER_ID,
  description: "Asked for a deposit",
  ...overrides
})
const resolveBody = (overrides: Body = {}): Body => ({ action: "warn", notes: "First warning", ...overrides })
const messageBody = (overrides: Body = {}): Body => ({ message_text: "Is it still available?", ...overrides })
const userBody = (overrides: Body = {}): Body => ({ name: "Sara", language: "en", ...overrides })

/** Each JSON body the field rules cover: its endpoint's schema and a body it accepts. */
const bodies = {
  "POST /requests": { schema: payloadOf("POST", "/requests"), valid: requestBody },
  "POST /offers": { schema: payloadOf("POST", "/offers"), valid: offerBody },
  "POST /seller-profiles": { schema: payloadOf("POST", "/seller-profiles"), valid: profileBody },
  "PUT /deals/{id}/cancel": { schema: payloadOf("PUT", "/deals/:id/cancel"), valid: cancelBody },
  "POST /ratings": { schema: payloadOf("POST", "/ratings"), valid: ratingBody },
  "POST /reports": { schema: payloadOf("POST", "/reports"), valid: reportBody },
  "PUT /admin/reports/{id}/resolve": { schema: payloadOf("PUT", "/admin/reports/:id/resolve"), valid: resolveBody },
  "POST /conversations/{id}/messages": {
    schema: payloadOf("POST", "/conversations/:id/messages"),
    valid: messageBody
  },
  "PUT /users/me": { schema: payloadOf("PUT", "/users/me"), valid: userBody }
} as const
type BodyEndpoint = keyof typeof bodies

/** The WebSocket's message frame, decoded as the server decodes any client frame. */
const messageFrame = (message_text: unknown) => ({ type: "message", conversation_id: ID, message_text })
const decodeFrame = (frame: unknown) => Schema.decodeUnknownEither(ClientFrame, { errors: "all" })(frame)
/** A frame's problems as the gateway answers them: an optional field's `invalid` branch left out when it has named ones. */
const frameProblems = (frame: unknown) =>
  decodeFrame(frame).pipe(
    Either.flip,
    Either.map((error) => {
      const problems = problemsOf(error.issue)
      const named = (path: PathProblem["path"]) =>
        problems.some((p) => p.key !== "invalid" && p.path.join(".") === path.join("."))
      return problems.filter((p) => p.key !== "invalid" || !named(p.path))
    }),
    Either.getOrElse((): ReadonlyArray<PathProblem> => [])
  )

// ---------------------------------------------------------------------------------------------------------------

describe("the bodies of the field rules", () => {
  it.each(Object.keys(bodies) as Array<BodyEndpoint>)("%s accepts its fixture", (endpoint) => {
    expectDecodes(bodies[endpoint].schema, bodies[endpoint].valid(), {})
  })
})

interface Invalid {
  readonly name: string
  readonly input: Body
  readonly field: string
  readonly problem: Expected
  readonly alsoFields?: ReadonlyArray<string>
}
const invalid = (name: string, input: Body, field: string, expected: Expected, alsoFields?: ReadonlyArray<string>) => ({
  name,
  input,
  field,
  problem: expected,
  ...(alsoFields ? { alsoFields } : {})
})

const required = problem("required")
const mustBeNumber = problem("must_be_number")
const positive = problem("positive")
const twoDecimals = problem("two_decimals")
const maxAmount = problem("max_amount", { max: 1_000_000_000 })
const uuid = problem("uuid")
const tooShort = (min: number) => problem("too_short", { min })
const tooLong = (max: number) => problem("too_long", { max })
const oneOf = (...values: Array<string>) => problem("one_of", { values: values.join(", ") })
const invalidCharacters = problem("invalid_characters")
const contactDetails = problem("contact_details")

/** The refusals of each body, as decisions.md section 2 states the rules. */
const invalidBodies: Record<BodyEndpoint, ReadonlyArray<Invalid>> = {
  "POST /requests": [
    invalid("category missing", without(requestBody(), "category"), "category", required),
    invalid("category not in the enum", requestBody({ category: "laptop" }), "category", oneOf("phone", "accessory")),
    invalid(
      "condition_pref not in the list",
      requestBody({ condition_pref: "broken" }),
      "condition_pref",
      oneOf("new", "used", "refurbished", "any")
    ),
    invalid("product_brand empty", requestBody({ product_brand: "" }), "product_brand", tooShort(1)),
    invalid("product_brand only spaces (trimmed)", requestBody({ product_brand: "   " }), "product_brand", tooShort(1)),
    invalid("product_brand of 101 chars", requestBody({ product_brand: long(101) }), "product_brand", tooLong(100)),
    invalid("product_model of 101 chars", requestBody({ product_model: long(101) }), "product_model", tooLong(100)),
    invalid("product_model empty", requestBody({ product_model: "" }), "product_model", tooShort(1)),
    invalid("budget_min missing", without(requestBody(), "budget_min"), "budget_min", required),
    invalid("budget_min 0", requestBody({ budget_min: 0 }), "budget_min", positive),
    invalid("budget_min negative", requestBody({ budget_min: -10 }), "budget_min", positive),
    invalid("budget_min as a string", requestBody({ budget_min: "3000" }), "budget_min", mustBeNumber),
    invalid("budget_min with 3 decimals", requestBody({ budget_min: 10.125 }), "budget_min", twoDecimals),
    invalid(
      "budget_min over 1,000,000,000",
      requestBody({ budget_min: 1_000_000_001, budget_max: 1_000_000_001 }),
      "budget_min",
      maxAmount,
      ["budget_max"]
    ),
    invalid("budget_max missing", without(requestBody(), "budget_max"), "budget_max", required),
    invalid(
      "budget_max below budget_min",
      requestBody({ budget_min: 500, budget_max: 499.99 }),
      "budget_max",
      problem("budget_max_below_min")
    ),
    invalid("budget_max over 1,000,000,000", requestBody({ budget_max: 1_000_000_000.01 }), "budget_max", maxAmount),
    invalid("budget_max 0", requestBody({ budget_min: 1, budget_max: 0 }), "budget_max", positive),
    invalid("location_district missing", without(requestBody(), "location_district"), "location_district", required),
    invalid("location_district empty", requestBody({ location_district: "" }), "location_district", tooShort(1)),
    invalid(
      "location_district of 101 chars",
      requestBody({ location_district: long(101) }),
      "location_district",
      tooLong(100)
    ),
    invalid("location_city empty", requestBody({ location_city: "" }), "location_city", tooShort(1)),
    invalid("location_city of 101 chars", requestBody({ location_city: long(101) }), "location_city", tooLong(100)),
    invalid("notes of 2001 chars", requestBody({ notes: long(2001) }), "notes", tooLong(2000)),
    invalid("a NUL character in notes", requestBody({ notes: "256 GB\u0000" }), "notes", invalidCharacters),
    invalid(
      "a NUL character in location_district",
      requestBody({ location_district: "Ola\u0000ya" }),
      "location_district",
      invalidCharacters
    ),
    invalid(
      "101 one-character emoji in product_brand",
      requestBody({ product_brand: "📱".repeat(101) }),
      "product_brand",
      tooLong(100)
    )
  ],
  "POST /offers": [
    invalid("request_id missing", without(offerBody(), "request_id"), "request_id", required),
    invalid("request_id not a UUID", offerBody({ request_id: "request-1" }), "request_id", uuid),
    invalid("price missing", without(offerBody(), "price"), "price", required),
    invalid("price 0", offerBody({ price: 0 }), "price", positive),
    invalid("price negative", offerBody({ price: -1 }), "price", positive),
    invalid("price with 3 decimals", offerBody({ price: 12.345 }), "price", twoDecimals),
    invalid("price over 1,000,000,000", offerBody({ price: 1_000_000_001 }), "price", maxAmount),
    invalid("price as a string", offerBody({ price: "4000" }), "price", mustBeNumber),
    invalid("availability missing", without(offerBody(), "availability"), "availability", required),
    invalid("availability empty", offerBody({ availability: "" }), "availability", tooShort(1)),
    invalid("availability of 201 chars", offerBody({ availability: long(201) }), "availability", tooLong(200)),
    invalid(
      "condition_notes of 2001 chars",
      offerBody({ condition_notes: long(2001) }),
      "condition_notes",
      tooLong(2000)
    ),
    invalid("warranty_notes of 2001 chars", offerBody({ warranty_notes: long(2001) }), "warranty_notes", tooLong(2000)),
    invalid(
      "a NUL character in availability",
      offerBody({ availability: "now\u0000" }),
      "availability",
      invalidCharacters
    )
  ],
  "POST /seller-profiles": [
    invalid("business_name missing", without(profileBody(), "business_name"), "business_name", required),
    invalid("business_name of 1 char", profileBody({ business_name: "A" }), "business_name", tooShort(2)),
    invalid(
      "business_name of one emoji (two UTF-16 units)",
      profileBody({ business_name: "📱" }),
      "business_name",
      tooShort(2)
    ),
    invalid("business_name of 121 chars", profileBody({ business_name: long(121) }), "business_name", tooLong(120)),
    invalid("location_district missing", without(profileBody(), "location_district"), "location_district", required),
    invalid(
      "location_district of 101 chars",
      profileBody({ location_district: long(101) }),
      "location_district",
      tooLong(100)
    ),
    invalid("location_city empty", profileBody({ location_city: "" }), "location_city", tooShort(1)),
    invalid("bio of 2001 chars", profileBody({ bio: long(2001) }), "bio", tooLong(2000)),
    invalid(
      "business_name with a phone number",
      profileBody({ business_name: "WhatsApp 0501234567" }),
      "business_name",
      contactDetails
    ),
    invalid(
      "business_name with a domain",
      profileBody({ business_name: "alishop.sa" }),
      "business_name",
      contactDetails
    ),
    invalid("bio with a handle", profileBody({ bio: "تابعنا سناب: ali_shop" }), "bio", contactDetails)
  ],
  "PUT /deals/{id}/cancel": [
    invalid("reason missing", { description: "no reason" }, "reason", required),
    invalid("reason empty", { reason: "" }, "reason", tooShort(1)),
    invalid("reason of 201 chars", { reason: long(201) }, "reason", tooLong(200)),
    invalid(
      "description of 2001 chars",
      { reason: "Changed my mind", description: long(2001) },
      "description",
      tooLong(2000)
    )
  ],
  "POST /ratings": [
    invalid("rating 0", ratingBody({ rating: 0 }), "rating", problem("rating_range")),
    invalid("rating 6", ratingBody({ rating: 6 }), "rating", problem("rating_range")),
    invalid("rating 3.5", ratingBody({ rating: 3.5 }), "rating", problem("rating_range")),
    invalid("rating as a string", ratingBody({ rating: "5" }), "rating", mustBeNumber),
    invalid("rating missing", without(ratingBody(), "rating"), "rating", required),
    invalid("deal_id missing", without(ratingBody(), "deal_id"), "deal_id", required),
    invalid("deal_id not a UUID", ratingBody({ deal_id: "deal-1" }), "deal_id", uuid),
    invalid("review_text of 2001 chars", ratingBody({ review_text: long(2001) }), "review_text", tooLong(2000))
  ],
  "POST /reports": [
    invalid(
      "reason not in the enum",
      reportBody({ reason: "spam" }),
      "reason",
      oneOf("fake_offer", "no_show", "rude", "scam", "other")
    ),
    invalid("reason missing", without(reportBody(), "reason"), "reason", required),
    invalid("reported_user_id missing", without(reportBody(), "reported_user_id"), "reported_user_id", required),
    invalid("reported_user_id not a UUID", reportBody({ reported_user_id: "user-1" }), "reported_user_id", uuid),
    invalid("deal_id not a UUID", reportBody({ deal_id: "deal-1" }), "deal_id", uuid),
    invalid("description of 2001 chars", reportBody({ description: long(2001) }), "description", tooLong(2000)),
    invalid("a NUL character in description", reportBody({ description: "\u0000" }), "description", invalidCharacters)
  ],
  "PUT /admin/reports/{id}/resolve": [
    invalid("action missing", { notes: "no action" }, "action", required),
    invalid("action not in the list", { action: "ban" }, "action", oneOf("dismiss", "warn", "suspend_seller")),
    invalid("notes of 2001 chars", { action: "warn", notes: long(2001) }, "notes", tooLong(2000))
  ],
  "POST /conversations/{id}/messages": [
    invalid("message_text only spaces", { message_text: "   " }, "message_text", tooShort(1)),
    invalid("message_text of 4001 chars", { message_text: long(4001) }, "message_text", tooLong(4000)),
    invalid("message_text missing", {}, "message_text", required)
  ],
  "PUT /users/me": [
    invalid("name empty", userBody({ name: "" }), "name", tooShort(1)),
    invalid("name of 101 chars", userBody({ name: long(101) }), "name", tooLong(100)),
    invalid("name with a phone number", userBody({ name: "Ali ٠٥٠ ١٢٣ ٤٥٦٧" }), "name", contactDetails),
    invalid("name with an e-mail address", userBody({ name: "ali at gmail dot com" }), "name", contactDetails),
    invalid("language not in the list", userBody({ language: "fr" }), "language", oneOf("ar", "en"))
  ]
}

describe("field rules (decisions.md section 2): a refused body names the field and its problem", () => {
  describe.each(Object.keys(invalidBodies) as Array<BodyEndpoint>)("%s", (endpoint) => {
    it.each(invalidBodies[endpoint].map((c) => [c.name, c] as const))("%s", (_, c) => {
      expectRefused(bodies[endpoint].schema, c.input, c.field, c.problem, c.alsoFields)
    })
  })

  it.each(Object.keys(bodies) as Array<BodyEndpoint>)(
    "%s: a body that is not an object is refused as a whole",
    (endpoint) => {
      // The server's body check answers these before the schema (must_be_object, tested end to end); the schema
      // refuses them too, at the body. It calls them `invalid` where the payload has optional fields: the annotation
      // is on the struct, and an optional field makes the struct a transformation whose encoded side has none.
      for (const body of [[], "category=phone", 5, true]) {
        const problems = problemsIn(bodies[endpoint].schema, body)
        expect(problems.length, JSON.stringify(body)).toBeGreaterThan(0)
        expect(new Set(problems.map(fieldOf)), JSON.stringify(body)).toEqual(new Set(["body"]))
      }
    }
  )

  it("POST /requests: every failing field is reported at once", () => {
    const problems = problemsIn(bodies["POST /requests"].schema, { category: "laptop", budget_min: 0, budget_max: -1 })
    expect(fieldsNamed(problems)).toEqual(["budget_max", "budget_min", "category", "location_district"])
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: ["category"], ...oneOf("phone", "accessory") },
        { path: ["budget_min"], ...positive },
        { path: ["budget_max"], ...positive },
        { path: ["location_district"], ...required }
      ])
    )
  })

  it("POST /reports: deal_id is optional, absent or null", () => {
    for (const body of [without(reportBody(), "deal_id"), reportBody({ deal_id: null })]) {
      const decoded = wireNamed(Either.getOrThrow(decode(bodies["POST /reports"].schema, body)))
      expect(decoded).toMatchObject({ reported_user_id: ID, reason: "scam" })
      expect(decoded).not.toHaveProperty("deal_id")
    }
  })
})

// ---------------------------------------------------------------------------------------------------------------

interface Accepted {
  readonly name: string
  readonly input: Body
  readonly decoded: Record<string, unknown>
}
const accepted = (name: string, input: Body, decoded: Record<string, unknown>): Accepted => ({ name, input, decoded })

const acceptedBodies: Partial<Record<BodyEndpoint, ReadonlyArray<Accepted>>> = {
  "POST /requests": [
    accepted(
      "only the required fields (condition_pref: any)",
      { category: "accessory", budget_min: 10, budget_max: 10, location_district: "Malaz" },
      { category: "accessory", budget_min: 10, budget_max: 10, location_district: "Malaz", condition_pref: "any" }
    ),
    accepted(
      "bounds: 100-char brand and model, 2000-char notes",
      requestBody({ product_brand: long(100), product_model: long(100), notes: long(2000) }),
      { product_brand: long(100), product_model: long(100), notes: long(2000) }
    ),
    accepted("money bounds: 0.01 and 1,000,000,000", requestBody({ budget_min: 0.01, budget_max: 1_000_000_000 }), {
      budget_min: 0.01,
      budget_max: 1_000_000_000
    }),
    accepted("budget_max equal to budget_min", requestBody({ budget_min: 500, budget_max: 500 }), {
      budget_min: 500,
      budget_max: 500
    }),
    accepted("two decimals kept as a number", requestBody({ budget_min: 1999.99, budget_max: 2500.5 }), {
      budget_min: 1999.99,
      budget_max: 2500.5
    }),
    accepted("text is trimmed", requestBody({ product_brand: "  Samsung  ", location_district: " Malaz " }), {
      product_brand: "Samsung",
      location_district: "Malaz"
    }),
    accepted("free text is trimmed too", requestBody({ notes: "\n  256 GB \t" }), { notes: "256 GB" }),
    accepted("Arabic text", requestBody({ product_brand: "أبل", location_district: "العليا" }), {
      product_brand: "أبل",
      location_district: "العليا"
    }),
    accepted("60 one-character emoji in a 1..100 field", requestBody({ product_brand: "📱".repeat(60) }), {
      product_brand: "📱".repeat(60)
    }),
    accepted("100 one-character emoji in a 1..100 field", requestBody({ product_brand: "📱".repeat(100) }), {
      product_brand: "📱".repeat(100)
    }),
    ...(["new", "used", "refurbished", "any"] as const).map((value) =>
      accepted(`condition_pref ${value}`, requestBody({ condition_pref: value }), { condition_pref: value })
    )
  ],
  "POST /offers": [
    accepted(
      "bounds: 0.01, 200-char availability, 2000-char notes",
      offerBody({ price: 0.01, availability: long(200), condition_notes: long(2000), warranty_notes: long(2000) }),
      { price: 0.01, availability: long(200), condition_notes: long(2000), warranty_notes: long(2000) }
    ),
    accepted(
      "only the required fields, price 1,000,000,000",
      { request_id: ID, price: 1_000_000_000, availability: "now" },
      { request_id: ID, price: 1_000_000_000, availability: "now" }
    )
  ],
  "POST /seller-profiles": [
    accepted("a 2-char business_name and a 2000-char bio", profileBody({ business_name: "AB", bio: long(2000) }), {
      business_name: "AB",
      bio: long(2000)
    }),
    accepted(
      "only the required fields, a 120-char business_name",
      { business_name: long(120), location_district: "Malaz" },
      { business_name: long(120), location_district: "Malaz" }
    )
  ],
  "PUT /deals/{id}/cancel": [
    accepted(
      "a 200-char reason and a 2000-char description",
      { reason: long(200), description: long(2000) },
      {
        reason: long(200),
        description: long(2000)
      }
    ),
    accepted("a reason alone", { reason: "Changed my mind" }, { reason: "Changed my mind" })
  ],
  "POST /ratings": [
    ...[1, 2, 3, 4, 5].map((rating) => accepted(`rating ${rating}`, ratingBody({ rating }), { rating })),
    accepted("a 2000-char review_text", ratingBody({ review_text: long(2000) }), { review_text: long(2000) })
  ],
  "POST /reports": (["fake_offer", "no_show", "rude", "scam", "other"] as const).map((reason) =>
    accepted(`reason ${reason}`, reportBody({ reason }), { reason })
  ),
  "PUT /admin/reports/{id}/resolve": (["dismiss", "warn", "suspend_seller"] as const).map((action) =>
    accepted(`action ${action}`, { action }, { action })
  ),
  "POST /conversations/{id}/messages": [
    accepted("a 4000-char message_text", { message_text: long(4000) }, { message_text: long(4000) }),
    accepted("4000 emoji", { message_text: "😀".repeat(4000) }, { message_text: "😀".repeat(4000) }),
    accepted("message_text trimmed", { message_text: "  hello \n" }, { message_text: "hello" })
  ]
}

describe("field rules (decisions.md section 2): what a body accepts, decoded", () => {
  describe.each(Object.keys(acceptedBodies) as Array<BodyEndpoint>)("%s", (endpoint) => {
    it.each((acceptedBodies[endpoint] ?? []).map((c) => [c.name, c] as const))("accepts %s", (_, c) => {
      expectDecodes(bodies[endpoint].schema, c.input, c.decoded)
    })
  })

  it("POST /requests: an absent or null condition_pref is `any`", () => {
    const schema = bodies["POST /requests"].schema
    expect(wireNamed(Either.getOrThrow(decode(schema, without(requestBody(), "condition_pref"))))).toHaveProperty(
      "condition_pref",
      "any"
    )
    expect(wireNamed(Either.getOrThrow(decode(schema, requestBody({ condition_pref: null }))))).toHaveProperty(
      "condition_pref",
      "any"
    )
  })

  it("POST /requests: an optional field sent as null is absent", () => {
    const body = requestBody({ product_brand: null, product_model: null, location_city: null, notes: null })
    const decoded = wireNamed(Either.getOrThrow(decode(bodies["POST /requests"].schema, body)))
    for (const field of ["product_brand", "product_model", "location_city", "notes"]) {
      expect(decoded).not.toHaveProperty(field)
    }
  })

  it("unknown fields are dropped, never decoded (no mass assignment)", () => {
    const owned = { status: "closed", buyer_id: OTHER_ID, seller_id: OTHER_ID, is_admin: true, rating_avg: 5 }
    for (const endpoint of Object.keys(bodies) as Array<BodyEndpoint>) {
      const decoded = wireNamed(Either.getOrThrow(decode(bodies[endpoint].schema, bodies[endpoint].valid(owned))))
      for (const field of Object.keys(owned)) expect(decoded, `${endpoint} ${field}`).not.toHaveProperty(field)
    }
  })

  it("lengths count characters (code points), not UTF-16 units, in free texts too", () => {
    expectDecodes(bodies["POST /requests"].schema, requestBody({ notes: "📱".repeat(2000) }), {
      notes: "📱".repeat(2000)
    })
    expectRefused(bodies["POST /requests"].schema, requestBody({ notes: "📱".repeat(2001) }), "notes", tooLong(2000))
    expectRefused(
      bodies["POST /conversations/{id}/messages"].schema,
      { message_text: "😀".repeat(4001) },
      "message_text",
      tooLong(4000)
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Queries

interface InvalidQuery {
  readonly path: string
  readonly search: string
  readonly field: string
  readonly problem: Expected
}
const integerRange = (min: number, max: number) => problem("integer_range", { min, max })
const perPage = integerRange(1, 50)

const invalidQueries: ReadonlyArray<InvalidQuery> = [
  { path: "/requests", search: "category=laptop", field: "category", problem: oneOf("phone", "accessory") },
  { path: "/requests", search: "status=pending", field: "status", problem: oneOf("active", "closed", "expired") },
  { path: "/requests", search: "per_page=0", field: "per_page", problem: perPage },
  { path: "/requests", search: "per_page=51", field: "per_page", problem: perPage },
  { path: "/requests", search: "per_page=ten", field: "per_page", problem: perPage },
  { path: "/requests", search: "page=0", field: "page", problem: integerRange(1, Number.MAX_SAFE_INTEGER) },
  { path: "/requests", search: "location_city=Riy%00adh", field: "location_city", problem: invalidCharacters },
  { path: "/requests/my", search: "status=open", field: "status", problem: oneOf("active", "closed", "expired") },
  { path: "/requests/my", search: "per_page=51", field: "per_page", problem: perPage },
  {
    path: "/offers/my",
    search: "status=cancelled",
    field: "status",
    problem: oneOf("pending", "accepted", "rejected", "withdrawn", "expired")
  },
  { path: "/offers/my", search: "per_page=0", field: "per_page", problem: perPage },
  { path: "/deals/my", search: "status=open", field: "status", problem: oneOf("accepted", "completed", "cancelled") },
  { path: "/deals/my", search: "role=admin", field: "role", problem: oneOf("buyer", "seller") },
  { path: "/deals/my", search: "per_page=51", field: "per_page", problem: perPage },
  { path: "/conversations/my", search: "per_page=51", field: "per_page", problem: perPage },
  {
    path: "/admin/reports",
    search: "status=open",
    field: "status",
    problem: oneOf("pending", "resolved", "dismissed")
  },
  { path: "/admin/reports", search: "per_page=0", field: "per_page", problem: perPage },
  { path: "/admin/seller-profiles/pending", search: "per_page=51", field: "per_page", problem: perPage },
  { path: "/conversations/:id/messages", search: "limit=0", field: "limit", problem: integerRange(1, 100) },
  { path: "/conversations/:id/messages", search: "limit=101", field: "limit", problem: integerRange(1, 100) },
  { path: "/conversations/:id/messages", search: "before=yesterday", field: "before", problem: problem("timestamp") }
]

describe("query rules (decisions.md sections 2 and 11): a refused query names the parameter and its problem", () => {
  it.each(invalidQueries.map((c) => [`GET ${c.path}?${c.search}`, c] as const))("%s", (_, c) => {
    expectRefused(urlParamsOf(c.path), query(c.search), c.field, c.problem)
  })
})

describe("query rules (decisions.md sections 2 and 5): what a query accepts, decoded", () => {
  it.each([
    [
      "/requests",
      "category=accessory&status=closed&location_city=Riyadh&page=3&per_page=50",
      {
        category: "accessory",
        status: "closed",
        location_city: "Riyadh",
        page: 3,
        per_page: 50
      }
    ],
    ["/requests", "(nothing)", {}],
    ["/deals/my", "status=cancelled&role=seller&per_page=1", { status: "cancelled", role: "seller", per_page: 1 }],
    [
      "/conversations/:id/messages",
      "limit=100&before=2025-01-31T10:00:00.000Z",
      {
        limit: 100,
        before: new Date("2025-01-31T10:00:00.000Z")
      }
    ]
  ] as const)("GET %s?%s", (path, search, decoded) => {
    expectDecodes(urlParamsOf(path), query(search === "(nothing)" ? "" : search), decoded)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Money (docs/DECISIONS.md, "Envelope, validation and language"): a finite decimal with at most two places in (0, 1,000,000,000]

/** Money spellings as a JSON body writes them, read as the server's JSON parser reads them. */
const badAmounts: ReadonlyArray<readonly [string, string, Expected]> = [
  ["the smallest double", "5e-324", twoDecimals],
  ["a nano amount", "1e-9", twoDecimals],
  ["nine decimals", "1.000000001", twoDecimals],
  ["three decimals that round to two", "1.005", twoDecimals],
  ["a cent over the maximum", "1000000000.01", maxAmount],
  ["a number JSON.parse reads as Infinity", "1e400", mustBeNumber],
  ["minus infinity", "-1e400", mustBeNumber],
  ["negative zero", "-0", positive],
  ["zero", "0", positive],
  ["a negative amount", "-5", positive],
  ["a numeric string", '"100"', mustBeNumber],
  ["the string Infinity", '"Infinity"', mustBeNumber],
  ["the string NaN", '"NaN"', mustBeNumber],
  ["an exponent string", '"1e3"', mustBeNumber],
  ["a boolean", "true", mustBeNumber],
  ["an array", "[100]", mustBeNumber],
  ["null (a required amount)", "null", mustBeNumber]
]

/** Amounts that are valid, as written, with the number they decode to. */
const goodAmounts: ReadonlyArray<readonly [string, number]> = [
  ["0.01", 0.01],
  ["19.99", 19.99],
  ["1.10", 1.1],
  ["1e9", 1_000_000_000],
  ["999999999.99", 999_999_999.99],
  ["0.1", 0.1]
]

const moneyFields: ReadonlyArray<{
  readonly field: string
  readonly schema: Input
  readonly body: (n: unknown) => Body
}> = [
  { field: "price", schema: bodies["POST /offers"].schema, body: (price) => offerBody({ price }) },
  {
    field: "budget_min",
    schema: bodies["POST /requests"].schema,
    body: (budget_min) => requestBody({ budget_min, budget_max: 1_000_000_000 })
  },
  {
    field: "budget_max",
    schema: bodies["POST /requests"].schema,
    body: (budget_max) => requestBody({ budget_min: 0.01, budget_max })
  }
]

describe("money: amounts", () => {
  describe.each(moneyFields.map((m) => [m.field, m] as const))("%s", (_, money) => {
    it.each(badAmounts.map(([what, spelling, expected]) => [spelling, what, expected] as const))(
      "refuses %s (%s)",
      (spelling, _what, expected) => {
        expectRefused(money.schema, money.body(JSON.parse(spelling)), money.field, expected)
      }
    )

    it.each(goodAmounts)("accepts %s as %d", (spelling, expected) => {
      expectDecodes(money.schema, money.body(JSON.parse(spelling)), { [money.field]: expected })
    })
  })

  it("names the rule broken, in English and in Arabic", () => {
    const messages = (spelling: string, language: "ar" | "en") =>
      problemsIn(bodies["POST /offers"].schema, offerBody({ price: JSON.parse(spelling) }))
        .filter((p) => fieldOf(p) === "price")
        .map((p) => translate(p.key, language, p.params))
    expect(messages("1.000000001", "en")).toEqual(["At most 2 decimal places are allowed"])
    expect(messages("5e-324", "en")).toEqual(["At most 2 decimal places are allowed"])
    expect(messages("1000000000.01", "en")).toEqual(["Must be at most 1000000000"])
    expect(messages("-0", "en")).toEqual(["Must be greater than zero"])
    expect(messages("1.005", "ar")).toEqual(["يُسمح بخانتين عشريتين على الأكثر"])
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Texts (docs/DECISIONS.md, "Text values"): the characters each kind of text refuses and keeps

/** Characters refused in every text, one per class. */
const refusedEverywhere: ReadonlyArray<readonly [string, string]> = [
  ["a lone high surrogate", "\uD800"],
  ["a lone low surrogate", "\uDC00"],
  ["a reversed surrogate pair", "\uDC00\uD800"],
  ["NUL", "\u0000"],
  ["a C0 control (SOH)", "\u0001"],
  ["ESC", "\u001B"],
  ["DEL", "\u007F"],
  ["a C1 control (NEL)", "\u0085"],
  ["a C1 control (CSI)", "\u009B"],
  ["a lone carriage return", "\r"],
  ["a bidi embedding (LRE)", "\u202A"],
  ["a bidi override (RLO)", "\u202E"],
  ["a bidi isolate (LRI)", "\u2066"],
  ["a bidi isolate (FSI)", "\u2068"],
  ["a pop isolate (PDI)", "\u2069"],
  ["a line separator", "\u2028"],
  ["a paragraph separator", "\u2029"]
]

/** Characters refused in single-line texts only (free texts keep them). */
const refusedInLines: ReadonlyArray<readonly [string, string]> = [
  ["a line feed", "\n"],
  ["CR LF", "\r\n"],
  ["a tab", "\t"],
  ["a zero-width space", "\u200B"],
  ["a word joiner", "\u2060"],
  ["a zero-width no-break space (BOM)", "\uFEFF"]
]

/** Characters every text keeps. */
const keptEverywhere: ReadonlyArray<readonly [string, string]> = [
  ["a right-to-left mark", "\u200F"],
  ["a left-to-right mark", "\u200E"],
  ["an Arabic letter mark", "\u061C"],
  ["a zero-width joiner (emoji sequences)", "\u200D"],
  ["a zero-width non-joiner (Persian)", "\u200C"],
  ["an emoji (a surrogate pair)", "\uD83D\uDE00"]
]

/** Inside a text, so trimming cannot remove what is tested. */
const within = (character: string) => `A${character}B`

interface TextField {
  readonly endpoint: BodyEndpoint
  readonly field: string
}
const textField = (endpoint: BodyEndpoint, field: string): TextField => ({ endpoint, field })

/** Every single-line text of the bodies (Text). */
const singleLineTexts: ReadonlyArray<TextField> = [
  textField("PUT /users/me", "name"),
  textField("POST /seller-profiles", "business_name"),
  textField("POST /seller-profiles", "location_district"),
  textField("POST /seller-profiles", "location_city"),
  textField("POST /requests", "product_brand"),
  textField("POST /requests", "product_model"),
  textField("POST /requests", "location_district"),
  textField("POST /requests", "location_city"),
  textField("POST /offers", "availability"),
  textField("PUT /deals/{id}/cancel", "reason")
]

/** Every free text of the bodies (FreeText). */
const freeTexts: ReadonlyArray<TextField> = [
  textField("POST /requests", "notes"),
  textField("POST /seller-profiles", "bio"),
  textField("POST /offers", "condition_notes"),
  textField("POST /offers", "warranty_notes"),
  textField("PUT /deals/{id}/cancel", "description"),
  textField("POST /reports", "description"),
  textField("POST /ratings", "review_text"),
  textField("POST /conversations/{id}/messages", "message_text"),
  textField("PUT /admin/reports/{id}/resolve", "notes")
]

const withText = ({ endpoint, field }: TextField, value: string) => bodies[endpoint].valid({ [field]: value })
const label = ({ endpoint, field }: TextField) => `${endpoint} ${field}`

describe("texts: refused and kept characters", () => {
  describe.each(singleLineTexts.map((t) => [label(t), t] as const))("single-line %s", (_, text) => {
    it.each([...refusedEverywhere, ...refusedInLines])("refuses %s", (_what, character) => {
      expectRefused(bodies[text.endpoint].schema, withText(text, within(character)), text.field, invalidCharacters)
    })
    it.each(keptEverywhere)("keeps %s", (_what, character) => {
      expectDecodes(bodies[text.endpoint].schema, withText(text, within(character)), {
        [text.field]: within(character)
      })
    })
    it("is trimmed of surrounding white space", () => {
      expectDecodes(bodies[text.endpoint].schema, withText(text, "  Olaya \t"), { [text.field]: "Olaya" })
    })
    it("refuses only white space as too short", () => {
      const problems = problemsIn(bodies[text.endpoint].schema, withText(text, " \n\t "))
      expect(problems.map((p) => [fieldOf(p), p.key])).toContainEqual([text.field, "too_short"])
    })
  })

  describe.each(freeTexts.map((t) => [label(t), t] as const))("free text %s", (_, text) => {
    it.each(refusedEverywhere)("refuses %s", (_what, character) => {
      expectRefused(bodies[text.endpoint].schema, withText(text, within(character)), text.field, invalidCharacters)
    })
    it.each([...refusedInLines, ...keptEverywhere])("keeps %s", (_what, character) => {
      expectDecodes(bodies[text.endpoint].schema, withText(text, within(character)), {
        [text.field]: within(character)
      })
    })
    it("keeps line breaks and tabs inside, trims them outside", () => {
      const text1 = "first line\nsecond line\r\n\tindented \u200F\u0645\u0631\u062D\u0628\u0627"
      expectDecodes(bodies[text.endpoint].schema, withText(text, `\n ${text1} \r\n`), { [text.field]: text1 })
    })
  })

  describe("the WebSocket's message frame (decoded as every client frame is)", () => {
    it.each(refusedEverywhere)("refuses %s in message_text", (_what, character) => {
      const problems = frameProblems(messageFrame(within(character)))
      expect(problems).toEqual([{ path: ["message_text"], ...invalidCharacters }])
    })
    it.each([...refusedInLines, ...keptEverywhere])("keeps %s in message_text", (_what, character) => {
      expect(Either.map(decodeFrame(messageFrame(within(character))), wireNamed)).toEqual(
        Either.right(messageFrame(within(character)))
      )
    })
    it("keeps line breaks and tabs as REST does, and has the length rules of REST", () => {
      const text = "first line\r\n\tsecond"
      expect(Either.map(decodeFrame(messageFrame(text)), wireNamed)).toEqual(Either.right(messageFrame(text)))
      // Blank text decodes to "" (a frame with attachments may have no text); the gateway refuses it without any.
      expect(frameProblems(messageFrame("   "))).toEqual([])
      expect(frameProblems(messageFrame(long(4001)))).toEqual([{ path: ["message_text"], ...tooLong(4000) }])
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------

/** Every refusal of this file: each invalid body and query, each bad amount, each refused character. */
const everyRefusal = (): ReadonlyArray<readonly [Input, unknown]> => [
  ...(Object.keys(invalidBodies) as Array<BodyEndpoint>).flatMap((endpoint) =>
    invalidBodies[endpoint].map((c) => [bodies[endpoint].schema, c.input] as const)
  ),
  [bodies["POST /requests"].schema, []],
  [bodies["POST /requests"].schema, { category: "laptop", budget_min: 0, budget_max: -1 }],
  ...invalidQueries.map((c) => [urlParamsOf(c.path), query(c.search)] as const),
  ...moneyFields.flatMap((money) =>
    badAmounts.map(([, spelling]) => [money.schema, money.body(JSON.parse(spelling))] as const)
  ),
  ...singleLineTexts.flatMap((text) =>
    [...refusedEverywhere, ...refusedInLines].map(
      ([, character]) => [bodies[text.endpoint].schema, withText(text, within(character))] as const
    )
  ),
  ...freeTexts.flatMap((text) =>
    refusedEverywhere.map(([, character]) => [bodies[text.endpoint].schema, withText(text, within(character))] as const)
  )
]

describe("messages of the field rules", () => {
  const ARABIC = /[\u0600-\u06FF]/

  it("every problem of every refusal above has a message of its own in Arabic and in English, parameters filled in", () => {
    const problems = everyRefusal().flatMap(([schema, input]) => problemsIn(schema, input))
    expect(new Set(problems.map((p) => p.key))).toEqual(
      new Set([
        "invalid",
        "required",
        "must_be_number",
        "positive",
        "two_decimals",
        "max_amount",
        "budget_max_below_min",
        "one_of",
        "too_short",
        "too_long",
        "invalid_characters",
        "contact_details",
        "uuid",
        "rating_range",
        "integer_range",
        "timestamp"
      ])
    )
    for (const found of problems) {
      expect(texts, found.key).toHaveProperty(found.key)
      const ar = translate(found.key, "ar", found.params)
      const en = translate(found.key, "en", found.params)
      // `invalid` is also the fallback of a key without a text: no other key may read as it.
      if (found.key !== "invalid") {
        expect(ar, found.key).not.toBe(translate("invalid", "ar"))
        expect(en, found.key).not.toBe(translate("invalid", "en"))
      }
      expect(ar, found.key).toMatch(ARABIC)
      expect(en, found.key).not.toMatch(ARABIC)
      expect(en, found.key).toMatch(/[A-Za-z]/)
      for (const message of [ar, en]) expect(message, found.key).not.toMatch(/\{\w+\}/)
    }
  })
})
