import { describe, expect, it } from "vitest"
import { aProfileBody, expectError, ISO_UTC, keysOf, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends } from "../support/harness.js"

describe.each(backends)("seller profiles and their review on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  describe("POST /seller-profiles", () => {
    it("creates a pending profile and answers exactly the spec's fields", async () => {
      const user = await m.user("Sami")
      const response = await m.api().post("/seller-profiles", { token: user.token, body: aProfileBody() })
      expect(response.status).toBe(201)
      const data = response.body.data
      expect(keysOf(data)).toEqual(["business_name", "created_at", "id", "location_district", "status", "user_id"])
      expect(data).toMatchObject({
        user_id: user.userId,
        status: "pending",
        business_name: "Riyadh Phones",
        location_district: "Al Malaz"
      })
      expect(data.created_at).toMatch(ISO_UTC)
      const me = await m.api().get("/users/me", { token: user.token })
      expect(me.body.data.seller_profile).toMatchObject({
        id: data.id,
        status: "pending",
        rating_avg: 0,
        rating_count: 0
      })
    })

    it("trims text and never takes status or ratings from the body", async () => {
      const user = await m.user()
      const response = await m.api().raw.post("/seller-profiles", {
        token: user.token,
        body: {
          ...aProfileBody({ business_name: "  Shop  " }),
          status: "approved",
          rating_avg: 5,
          user_id: unknownId()
        }
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toMatchObject({ status: "pending", business_name: "Shop", user_id: user.userId })
      const me = await m.api().get("/users/me", { token: user.token })
      expect(me.body.data.seller_profile).toMatchObject({ status: "pending", rating_avg: 0 })
    })

    it("accepts only the required fields", async () => {
      const user = await m.user()
      const response = await m.api().post("/seller-profiles", {
        token: user.token,
        body: { business_name: "AB", location_district: "X" }
      })
      expect(response.status).toBe(201)
    })

    it("refuses a second application with 422 SELLER_PROFILE_EXISTS, whatever the first became", async () => {
      const pending = await m.applicant()
      expectError(
        await m.api().post("/seller-profiles", { token: pending.token, body: aProfileBody() }),
        422,
        "SELLER_PROFILE_EXISTS"
      )

      const rejected = await m.applicant()
      const { token } = await m.admin()
      expect((await m.api().put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token })).status).toBe(200)
      expectError(
        await m.api().post("/seller-profiles", { token: rejected.token, body: aProfileBody() }),
        422,
        "SELLER_PROFILE_EXISTS"
      )

      const approved = await m.seller()
      expectError(
        await m.api().post("/seller-profiles", { token: approved.token, body: aProfileBody() }),
        422,
        "SELLER_PROFILE_EXISTS"
      )
    })

    it("of several simultaneous applications of one user exactly one is created", async () => {
      const user = await m.user()
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => m.api().post("/seller-profiles", { token: user.token, body: aProfileBody() }))
      )
      expect(responses.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422])
      for (const r of responses.filter((r) => r.status === 422)) expect(r.body.error.code).toBe("SELLER_PROFILE_EXISTS")
    })

    it.each([
      ["business_name missing", { business_name: undefined }, "business_name"],
      ["business_name of 1 character", { business_name: "A" }, "business_name"],
      ["business_name of 121 characters", { business_name: "x".repeat(121) }, "business_name"],
      ["business_name only spaces", { business_name: "    " }, "business_name"],
      ["location_district missing", { location_district: undefined }, "location_district"],
      ["location_district empty", { location_district: "" }, "location_district"],
      ["location_city of 101 characters", { location_city: "x".repeat(101) }, "location_city"],
      ["bio over 2000 characters", { bio: "x".repeat(2001) }, "bio"],
      ["business_name a number", { business_name: 42 }, "business_name"]
    ])("refuses %s with 400 VALIDATION_ERROR naming the field, creating nothing", async (_, change, field) => {
      const user = await m.user()
      const error = expectError(
        await m.api().raw.post("/seller-profiles", { token: user.token, body: { ...aProfileBody(), ...change } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toContain(field)
      const me = await m.api().get("/users/me", { token: user.token })
      expect(me.body.data.seller_profile).toBeNull()
    })

    it("needs a token (401 outranks a bad body)", async () => {
      expectError(await m.api().post("/seller-profiles", { body: aProfileBody() }), 401, "UNAUTHORIZED")
      expectError(await m.api().raw.post("/seller-profiles", { body: {} }), 401, "UNAUTHORIZED")
    })

    it("localizes the error message and details by Accept-Language", async () => {
      const user = await m.user()
      const en = await m.api().post("/seller-profiles", {
        token: user.token,
        body: aProfileBody({ business_name: "A" }),
        headers: { "accept-language": "en" }
      })
      const ar = await m
        .api()
        .post("/seller-profiles", { token: user.token, body: aProfileBody({ business_name: "A" }) })
      expect(en.body.error.message).toBe("The data sent is not valid")
      expect(en.body.error.details.business_name).toEqual(["Must be at least 2 characters"])
      expect(ar.body.error.message).not.toBe(en.body.error.message)
    })
  })

  describe("GET /seller-profiles/{id} (public)", () => {
    it("shows an approved profile without a token, with only the public fields", async () => {
      const seller = await m.seller("Sami", { bio: "Hello" })
      const response = await m.api().get(`/seller-profiles/${seller.profileId}`)
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        id: seller.profileId,
        business_name: "Riyadh Phones",
        location_district: "Al Malaz",
        bio: "Hello",
        rating_avg: 0,
        rating_count: 0,
        created_at: expect.stringMatching(ISO_UTC),
        trust: {
          median_first_offer_minutes: null,
          median_reply_minutes: null,
          completion_rate: null,
          cancellation_rate: null,
          rating_avg: null,
          rating_count: 0,
          completed_deals: 0,
          member_since: expect.stringMatching(ISO_UTC)
        }
      })
    })

    it("answers 404 for a pending or rejected profile, an unknown id and a non-UUID id", async () => {
      const pending = await m.applicant()
      expectError(await m.api().get(`/seller-profiles/${pending.profileId}`), 404, "NOT_FOUND")
      const rejected = await m.applicant()
      const { token } = await m.admin()
      await m.api().put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token })
      expectError(await m.api().get(`/seller-profiles/${rejected.profileId}`), 404, "NOT_FOUND")
      expectError(await m.api().get(`/seller-profiles/${unknownId()}`), 404, "NOT_FOUND")
      expectError(await m.api().get("/seller-profiles/not-a-uuid"), 404, "NOT_FOUND")
    })
  })

  describe("GET /admin/seller-profiles/pending", () => {
    it("lists pending applications newest first with their applicant, paginated", async () => {
      const first = await m.applicant("First")
      server().clock.advance(1000)
      const second = await m.applicant("Second")
      server().clock.advance(1000)
      const approved = await m.seller("Approved")
      const { token } = await m.admin()

      const all = await m.api().get("/admin/seller-profiles/pending?per_page=50", { token })
      expect(all.status).toBe(200)
      const ids = all.body.data.profiles.map((p) => p.id)
      expect(ids).not.toContain(approved.profileId)
      expect(ids.indexOf(second.profileId)).toBeLessThan(ids.indexOf(first.profileId))
      const item = all.body.data.profiles.find((p) => p.id === first.profileId)
      expect(item).toMatchObject({
        id: first.profileId,
        user_id: first.userId,
        status: "pending",
        business_name: "Riyadh Phones",
        user: { id: first.userId, phone_number: first.phone, name: "First" }
      })
      expect(all.body.data.pagination).toEqual({ current_page: 1, per_page: 50, total: ids.length, last_page: 1 })

      const page = await m.api().get("/admin/seller-profiles/pending?per_page=1&page=2", { token })
      expect(page.body.data.profiles.map((p) => p.id)).toEqual([ids[1]])
      expect(page.body.data.pagination).toEqual({
        current_page: 2,
        per_page: 1,
        total: ids.length,
        last_page: ids.length
      })
    })

    it("defaults to page 1 of 20", async () => {
      const { token } = await m.admin()
      const response = await m.api().get("/admin/seller-profiles/pending", { token })
      expect(response.body.data.pagination).toMatchObject({ current_page: 1, per_page: 20 })
    })

    it.each(["per_page=0", "per_page=51", "page=0", "page=abc", "per_page=2.5"])(
      "refuses %s with 400 VALIDATION_ERROR",
      async (query) => {
        const { token } = await m.admin()
        expectError(await m.api().get(`/admin/seller-profiles/pending?${query}`, { token }), 400, "VALIDATION_ERROR")
      }
    )

    it("is 401 without a token and 403 FORBIDDEN for a non-admin (even an approved seller)", async () => {
      expectError(await m.api().get("/admin/seller-profiles/pending"), 401, "UNAUTHORIZED")
      const user = await m.user()
      expectError(await m.api().get("/admin/seller-profiles/pending", { token: user.token }), 403, "FORBIDDEN")
      const seller = await m.seller()
      expectError(await m.api().get("/admin/seller-profiles/pending", { token: seller.token }), 403, "FORBIDDEN")
    })
  })

  describe("PUT /admin/seller-profiles/{id}/approve and /reject", () => {
    it("approves a pending profile: status approved, approved_at set, visible to the public", async () => {
      const applicant = await m.applicant()
      const { token } = await m.admin()
      const response = await m.api().put(`/admin/seller-profiles/${applicant.profileId}/approve`, { token })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        id: applicant.profileId,
        status: "approved",
        approved_at: expect.stringMatching(ISO_UTC)
      })
      const me = await m.api().get("/users/me", { token: applicant.token })
      expect(me.body.data.seller_profile?.status).toBe("approved")
      expect((await m.api().get(`/seller-profiles/${applicant.profileId}`)).status).toBe(200)
    })

    it("rejects a pending profile", async () => {
      const applicant = await m.applicant()
      const { token } = await m.admin()
      const response = await m.api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, { token })
      expect(response.status).toBe(200)
      // No reason given (no body): none to show.
      expect(response.body.data).toEqual({ id: applicant.profileId, status: "rejected", rejection_reason: null })
      const me = await m.api().get("/users/me", { token: applicant.token })
      expect(me.body.data.seller_profile?.status).toBe("rejected")
    })

    it("works on pending profiles only: 422 SELLER_PROFILE_NOT_PENDING", async () => {
      const { token } = await m.admin()
      const approved = await m.seller()
      expectError(
        await m.api().put(`/admin/seller-profiles/${approved.profileId}/approve`, { token }),
        422,
        "SELLER_PROFILE_NOT_PENDING"
      )
      expectError(
        await m.api().put(`/admin/seller-profiles/${approved.profileId}/reject`, { token }),
        422,
        "SELLER_PROFILE_NOT_PENDING"
      )
      const rejected = await m.applicant()
      await m.api().put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token })
      expectError(
        await m.api().put(`/admin/seller-profiles/${rejected.profileId}/approve`, { token }),
        422,
        "SELLER_PROFILE_NOT_PENDING"
      )
      const me = await m.api().get("/users/me", { token: rejected.token })
      expect(me.body.data.seller_profile?.status).toBe("rejected")
    })

    it("answers 404 for an unknown or non-UUID id", async () => {
      const { token } = await m.admin()
      for (const action of ["approve", "reject"] as const) {
        expectError(await m.api().put(`/admin/seller-profiles/${unknownId()}/${action}`, { token }), 404, "NOT_FOUND")
        expectError(await m.api().put(`/admin/seller-profiles/nope/${action}`, { token }), 404, "NOT_FOUND")
      }
    })

    it("is 401 without a token and 403 for non-admins, the applicant included; nothing changes", async () => {
      const applicant = await m.applicant()
      const other = await m.user()
      for (const action of ["approve", "reject"] as const) {
        expectError(await m.api().put(`/admin/seller-profiles/${applicant.profileId}/${action}`), 401, "UNAUTHORIZED")
        expectError(
          await m.api().put(`/admin/seller-profiles/${applicant.profileId}/${action}`, { token: applicant.token }),
          403,
          "FORBIDDEN"
        )
        expectError(
          await m.api().put(`/admin/seller-profiles/${applicant.profileId}/${action}`, { token: other.token }),
          403,
          "FORBIDDEN"
        )
      }
      const me = await m.api().get("/users/me", { token: applicant.token })
      expect(me.body.data.seller_profile?.status).toBe("pending")
    })

    it("of simultaneous approve and reject exactly one wins", async () => {
      const applicant = await m.applicant()
      const { token } = await m.admin()
      const [approve, reject] = await Promise.all([
        m.api().put(`/admin/seller-profiles/${applicant.profileId}/approve`, { token }),
        m.api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, { token })
      ])
      expect([approve.status, reject.status].sort()).toEqual([200, 422])
      const winner = approve.status === 200 ? "approved" : "rejected"
      const me = await m.api().get("/users/me", { token: applicant.token })
      expect(me.body.data.seller_profile?.status).toBe(winner)
    })
  })
})
