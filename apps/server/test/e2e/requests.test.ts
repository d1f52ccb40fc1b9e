import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { aRequestBody, expectError, ISO_UTC, keysOf, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends } from "../support/harness.js"

const listItemKeys = [
  "budget_max",
  "budget_min",
  "category",
  "condition_pref",
  "created_at",
  "expires_at",
  "id",
  "location_district",
  "offer_count",
  "product_brand",
  "product_model",
  "status",
  "thumbnail_url"
]

/** A city no other test uses, so a list filtered by it holds only this test's requests. */
const aCity = () => `City ${randomUUID().slice(0, 8)}`

const byNewest = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1

describe.each(backends)("buy requests on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  describe("POST /requests", () => {
    it("creates an active request with no offers and answers the whole resource", async () => {
      const buyer = await m.user("Buyer")
      const response = await m.api().post("/requests", {
        token: buyer.token,
        body: aRequestBody({ budget_min: 1000.5, budget_max: 2000.25 })
      })
      expect(response.status).toBe(201)
      expect(response.body.success).toBe(true)
      expect(response.body.data).toEqual({
        id: expect.any(String),
        buyer_id: buyer.userId,
        category: "phone",
        product_brand: "Apple",
        product_model: "iPhone 15",
        condition_pref: "used",
        budget_min: 1000.5,
        budget_max: 2000.25,
        location_district: "Al Olaya",
        location_city: "Riyadh",
        notes: "Blue if possible",
        status: "active",
        offer_count: 0,
        created_at: expect.stringMatching(ISO_UTC),
        closed_at: null,
        expires_at: expect.stringMatching(ISO_UTC),
        extended_at: null,
        photos: []
      })
    })

    it("needs only category, budget and district; condition_pref defaults to any", async () => {
      const buyer = await m.user()
      const response = await m.api().post("/requests", {
        token: buyer.token,
        body: { category: "accessory", budget_min: 10, budget_max: 10, location_district: "Al Nakheel" }
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toMatchObject({
        category: "accessory",
        condition_pref: "any",
        product_brand: null,
        product_model: null,
        location_city: null,
        notes: null,
        budget_min: 10,
        budget_max: 10
      })
    })

    it("ignores fields the caller may not set (status, buyer_id, offer_count)", async () => {
      const buyer = await m.user()
      const response = await m.api().raw.post("/requests", {
        token: buyer.token,
        body: {
          ...aRequestBody(),
          status: "closed",
          buyer_id: unknownId(),
          offer_count: 9,
          closed_at: "2020-01-01T00:00:00Z"
        }
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toMatchObject({
        status: "active",
        buyer_id: buyer.userId,
        offer_count: 0,
        closed_at: null
      })
    })

    it.each([
      ["category not in the enum", { category: "laptop" }, "category"],
      ["category missing", { category: undefined }, "category"],
      ["budget_min missing", { budget_min: undefined }, "budget_min"],
      ["budget_min zero", { budget_min: 0 }, "budget_min"],
      ["budget_min negative", { budget_min: -5 }, "budget_min"],
      ["budget_min a string", { budget_min: "1000" }, "budget_min"],
      ["budget_min with 3 decimals", { budget_min: 10.123 }, "budget_min"],
      ["budget_max missing", { budget_max: undefined }, "budget_max"],
      ["budget_max below budget_min", { budget_min: 500, budget_max: 499.99 }, "budget_max"],
      ["budget_max over 1,000,000,000", { budget_max: 1_000_000_000.01 }, "budget_max"],
      ["location_district missing", { location_district: undefined }, "location_district"],
      ["location_district blank", { location_district: "   " }, "location_district"],
      ["location_district over 100 characters", { location_district: "x".repeat(101) }, "location_district"],
      ["location_city empty", { location_city: "" }, "location_city"],
      ["product_brand over 100 characters", { product_brand: "x".repeat(101) }, "product_brand"],
      ["product_model empty", { product_model: "" }, "product_model"],
      ["condition_pref unknown", { condition_pref: "mint" }, "condition_pref"],
      ["notes over 2000 characters", { notes: "x".repeat(2001) }, "notes"]
    ])("refuses %s with 400 VALIDATION_ERROR naming the field, storing nothing", async (_, change, field) => {
      const buyer = await m.user()
      const error = expectError(
        await m.api().raw.post("/requests", { token: buyer.token, body: { ...aRequestBody(), ...change } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toContain(field)
      const mine = await m.api().get("/requests/my", { token: buyer.token })
      expect(mine.body.data.pagination.total).toBe(0)
    })

    it("reports every failing field at once", async () => {
      const buyer = await m.user()
      const error = expectError(
        await m.api().raw.post("/requests", { token: buyer.token, body: { category: "x", budget_min: -1 } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details).sort()).toEqual(["budget_max", "budget_min", "category", "location_district"])
    })

    it("names the budget rule in the response language", async () => {
      const buyer = await m.user()
      const error = expectError(
        await m.api().post("/requests", {
          token: buyer.token,
          body: aRequestBody({ budget_min: 10, budget_max: 5 }),
          headers: { "accept-language": "en" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(error.details).toEqual({ budget_max: ["Must be greater than or equal to budget_min"] })
    })

    it("refuses a body that is not a JSON object", async () => {
      const buyer = await m.user()
      expectError(
        await m.api().raw.post("/requests", {
          token: buyer.token,
          rawBody: "{not json",
          headers: { "content-type": "application/json" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api().raw.post("/requests", { token: buyer.token, body: [aRequestBody()] }),
        400,
        "VALIDATION_ERROR"
      )
    })

    it("needs a token", async () => {
      expectError(await m.api().post("/requests", { body: aRequestBody() }), 401, "UNAUTHORIZED")
      expectError(await m.api().post("/requests", { token: "garbage", body: aRequestBody() }), 401, "UNAUTHORIZED")
    })
  })

  describe("GET /requests", () => {
    it("lists active requests newest first, with exactly the list fields and the pagination object", async () => {
      const city = aCity()
      const buyer = await m.user()
      const other = await m.user()
      const first = await m.request(buyer, { location_city: city })
      server().clock.advance(1000)
      const second = await m.request(other, { location_city: city })
      server().clock.advance(1000)
      const third = await m.request(buyer, { location_city: city })
      const response = await m.api().get(`/requests?location_city=${encodeURIComponent(city)}`, { token: other.token })
      expect(response.status).toBe(200)
      expect(response.body.data.requests.map((r) => r.id)).toEqual([third.id, second.id, first.id])
      for (const item of response.body.data.requests) expect(keysOf(item)).toEqual(listItemKeys)
      expect(response.body.data.requests[0]).toMatchObject({
        budget_min: 1000,
        budget_max: 2000,
        status: "active",
        offer_count: 0
      })
      expect(response.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1 })
    })

    it("orders requests of the same instant by id, descending", async () => {
      const city = aCity()
      const buyer = await m.user()
      await Promise.all(Array.from({ length: 4 }, () => m.request(buyer, { location_city: city })))
      const response = await m.api().get(`/requests?location_city=${encodeURIComponent(city)}`, { token: buyer.token })
      const items = response.body.data.requests
      expect(items).toHaveLength(4)
      expect(items).toEqual([...items].sort(byNewest))
    })

    it("pages through the list", async () => {
      const city = aCity()
      const buyer = await m.user()
      const made = []
      for (let i = 0; i < 5; i++) {
        made.push(await m.request(buyer, { location_city: city }))
        server().clock.advance(10)
      }
      const newestFirst = made.map((r) => r.id).reverse()
      const q = `location_city=${encodeURIComponent(city)}&per_page=2`
      const page1 = await m.api().get(`/requests?${q}`, { token: buyer.token })
      const page3 = await m.api().get(`/requests?${q}&page=3`, { token: buyer.token })
      const page4 = await m.api().get(`/requests?${q}&page=4`, { token: buyer.token })
      expect(page1.body.data.requests.map((r) => r.id)).toEqual(newestFirst.slice(0, 2))
      expect(page1.body.data.pagination).toEqual({ current_page: 1, per_page: 2, total: 5, last_page: 3 })
      expect(page3.body.data.requests.map((r) => r.id)).toEqual(newestFirst.slice(4))
      expect(page4.body.data.requests).toEqual([])
      expect(page4.body.data.pagination).toEqual({ current_page: 4, per_page: 2, total: 5, last_page: 3 })
    })

    it("filters by status (active by default, or closed), category and city exactly", async () => {
      const city = aCity()
      const buyer = await m.user()
      const phone = await m.request(buyer, { location_city: city, category: "phone" })
      const accessory = await m.request(buyer, { location_city: city, category: "accessory" })
      const closed = await m.request(buyer, { location_city: city })
      await m.request(buyer, { location_city: `${city} North` })
      expect((await m.api().put(`/requests/${closed.id}/close`, { token: buyer.token })).status).toBe(200)
      const ids = async (query: string) =>
        (
          await m.api().get(`/requests?location_city=${encodeURIComponent(city)}${query}`, { token: buyer.token })
        ).body.data.requests
          .map((r) => r.id)
          .sort()
      expect(await ids("")).toEqual([phone.id, accessory.id].sort())
      expect(await ids("&status=active")).toEqual([phone.id, accessory.id].sort())
      expect(await ids("&status=closed")).toEqual([closed.id])
      expect(await ids("&category=accessory")).toEqual([accessory.id])
      expect(await ids("&category=phone&status=closed")).toEqual([closed.id])
      const lower = await m
        .api()
        .get(`/requests?location_city=${encodeURIComponent(city.toLowerCase())}`, { token: buyer.token })
      expect(lower.body.data.requests).toEqual([])
    })

    it.each([
      "status=open",
      "status=pending",
      "category=laptop",
      "per_page=0",
      "per_page=51",
      "page=0",
      "page=-1",
      "location_city="
    ])("refuses %s with 400 VALIDATION_ERROR", async (query) => {
      const buyer = await m.user()
      expectError(await m.api().get(`/requests?${query}`, { token: buyer.token }), 400, "VALIDATION_ERROR")
    })

    it("accepts per_page 50, the maximum", async () => {
      const buyer = await m.user()
      const response = await m.api().get("/requests?per_page=50", { token: buyer.token })
      expect(response.status).toBe(200)
      expect(response.body.data.pagination.per_page).toBe(50)
    })

    it("needs a token", async () => {
      expectError(await m.api().get("/requests"), 401, "UNAUTHORIZED")
      expectError(await m.api().get("/requests?status=bogus"), 401, "UNAUTHORIZED")
    })
  })

  describe("GET /requests/my", () => {
    it("lists only the caller's requests, in every state unless a status is given", async () => {
      const buyer = await m.user()
      const other = await m.user()
      const active = await m.request(buyer)
      server().clock.advance(10)
      const closed = await m.request(buyer)
      await m.request(other)
      await m.api().put(`/requests/${closed.id}/close`, { token: buyer.token })
      const all = await m.api().get("/requests/my", { token: buyer.token })
      expect(all.status).toBe(200)
      expect(all.body.data.requests.map((r) => r.id)).toEqual([closed.id, active.id])
      for (const item of all.body.data.requests) expect(keysOf(item)).toEqual(listItemKeys)
      expect(all.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 2, last_page: 1 })
      const onlyClosed = await m.api().get("/requests/my?status=closed", { token: buyer.token })
      expect(onlyClosed.body.data.requests.map((r) => r.id)).toEqual([closed.id])
      expect(onlyClosed.body.data.requests[0].status).toBe("closed")
      const onlyActive = await m.api().get("/requests/my?status=active&per_page=1", { token: buyer.token })
      expect(onlyActive.body.data.requests.map((r) => r.id)).toEqual([active.id])
    })

    it("refuses an unknown status and a bad per_page with 400, and needs a token", async () => {
      const buyer = await m.user()
      expectError(await m.api().get("/requests/my?status=done", { token: buyer.token }), 400, "VALIDATION_ERROR")
      expectError(await m.api().get("/requests/my?per_page=100", { token: buyer.token }), 400, "VALIDATION_ERROR")
      expectError(await m.api().get("/requests/my"), 401, "UNAUTHORIZED")
    })
  })

  describe("GET /requests/{id}", () => {
    it("shows any signed-in user the request with its buyer instead of buyer_id", async () => {
      const buyer = await m.user("Noura")
      const viewer = await m.user()
      const posted = await m.request(buyer)
      const response = await m.api().get(`/requests/${posted.id}`, { token: viewer.token })
      expect(response.status).toBe(200)
      const { buyer_id, ...rest } = posted
      expect(buyer_id).toBe(buyer.userId)
      expect(response.body.data).toEqual({ ...rest, buyer: { id: buyer.userId, name: "Noura", deleted: false } })
    })

    it("answers 404 for an unknown or a non-UUID id, and 401 without a token", async () => {
      const viewer = await m.user()
      expectError(await m.api().get(`/requests/${unknownId()}`, { token: viewer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get("/requests/123", { token: viewer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get(`/requests/${unknownId()}`), 401, "UNAUTHORIZED")
    })
  })

  describe("PUT /requests/{id}/close", () => {
    it("closes the owner's active request: status closed, closed_at set", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      const response = await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        id: posted.id,
        status: "closed",
        closed_at: expect.stringMatching(ISO_UTC)
      })
      const detail = await m.api().get(`/requests/${posted.id}`, { token: buyer.token })
      expect(detail.body.data).toMatchObject({ status: "closed", closed_at: response.body.data.closed_at })
    })

    it("refuses to close a closed request with 422 REQUEST_ALREADY_CLOSED, keeping closed_at", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      const first = await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })
      server().clock.advance(5000)
      expectError(
        await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token }),
        422,
        "REQUEST_ALREADY_CLOSED"
      )
      const detail = await m.api().get(`/requests/${posted.id}`, { token: buyer.token })
      expect(detail.body.data.closed_at).toBe(first.body.data.closed_at)
    })

    it("is 403 for anybody but the owner (the request stays active), 404 for an unknown id, 401 without a token", async () => {
      const buyer = await m.user()
      const other = await m.user()
      const posted = await m.request(buyer)
      expectError(await m.api().put(`/requests/${posted.id}/close`, { token: other.token }), 403, "FORBIDDEN")
      const admin = await m.admin()
      expectError(await m.api().put(`/requests/${posted.id}/close`, { token: admin.token }), 403, "FORBIDDEN")
      const detail = await m.api().get(`/requests/${posted.id}`, { token: buyer.token })
      expect(detail.body.data.status).toBe("active")
      expectError(await m.api().put(`/requests/${unknownId()}/close`, { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().put("/requests/xyz/close", { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().put(`/requests/${posted.id}/close`), 401, "UNAUTHORIZED")
    })

    it("a stranger closing a closed request gets 403, not 422 (403 outranks 422)", async () => {
      const buyer = await m.user()
      const other = await m.user()
      const posted = await m.request(buyer)
      await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })
      expectError(await m.api().put(`/requests/${posted.id}/close`, { token: other.token }), 403, "FORBIDDEN")
    })

    it("of simultaneous closes exactly one succeeds", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => m.api().put(`/requests/${posted.id}/close`, { token: buyer.token }))
      )
      expect(responses.map((r) => r.status).sort()).toEqual([200, 422, 422, 422])
    })
  })
})
