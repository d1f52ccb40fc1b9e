import { describe, expect, it } from "vitest"
import { anOfferBody, expectError, ISO_UTC, keysOf, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends, type Query } from "../support/harness.js"

describe.each(backends)("reports and their resolution on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  const report = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    m.api().raw.post("/reports", { token, body, headers })

  const adminReports = async (query: Query = "") => {
    const { token } = await m.admin()
    const response = await m.api().get(`/admin/reports${query}`, { token })
    expect(response.status).toBe(200)
    return response.body.data
  }

  const fileOne = async () => {
    const made = await m.deal()
    const filed = await report(made.buyer.token, {
      reported_user_id: made.seller.userId,
      deal_id: made.deal.id,
      reason: "no_show",
      description: "Did not come"
    })
    expect(filed.status).toBe(201)
    return { ...made, reportId: filed.body.data.id as string }
  }

  describe("POST /reports", () => {
    it("files a pending report about the other party of a deal: 201 with id, status, created_at", async () => {
      const made = await m.deal()
      const response = await report(made.buyer.token, {
        reported_user_id: made.seller.userId,
        deal_id: made.deal.id,
        reason: "scam",
        description: "Asked for payment up front"
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toEqual({
        id: expect.any(String),
        status: "pending",
        created_at: expect.stringMatching(ISO_UTC)
      })
      const seller = await report(made.seller.token, {
        reported_user_id: made.buyer.userId,
        deal_id: made.deal.id,
        reason: "rude"
      })
      expect(seller.status).toBe(201)
    })

    it("files a report without a deal", async () => {
      const reporter = await m.user()
      const seller = await m.seller()
      const response = await report(reporter.token, { reported_user_id: seller.userId, reason: "fake_offer" })
      expect(response.status).toBe(201)
      expect(response.body.data.status).toBe("pending")
    })

    it("refuses reporting oneself with 422 CANNOT_REPORT_SELF", async () => {
      const made = await m.deal()
      expectError(
        await report(made.buyer.token, { reported_user_id: made.buyer.userId, reason: "other" }),
        422,
        "CANNOT_REPORT_SELF"
      )
      expectError(
        await report(made.buyer.token, { reported_user_id: made.buyer.userId, deal_id: made.deal.id, reason: "other" }),
        422,
        "CANNOT_REPORT_SELF"
      )
    })

    it("is 403 when the reporter is not a party of the given deal", async () => {
      const made = await m.deal()
      const stranger = await m.user()
      expectError(
        await report(stranger.token, { reported_user_id: made.seller.userId, deal_id: made.deal.id, reason: "scam" }),
        403,
        "FORBIDDEN"
      )
    })

    it("refuses a deal the reported user is not a party of with 400 on reported_user_id", async () => {
      const made = await m.deal()
      const bystander = await m.seller()
      const error = expectError(
        await report(
          made.buyer.token,
          { reported_user_id: bystander.userId, deal_id: made.deal.id, reason: "scam" },
          { "accept-language": "en" }
        ),
        400,
        "VALIDATION_ERROR"
      )
      expect(error.details).toEqual({ reported_user_id: ["The reported user is not a party of this deal"] })
    })

    it("answers 404 for an unknown reported user or deal", async () => {
      const made = await m.deal()
      expectError(await report(made.buyer.token, { reported_user_id: unknownId(), reason: "scam" }), 404, "NOT_FOUND")
      expectError(
        await report(made.buyer.token, { reported_user_id: made.seller.userId, deal_id: unknownId(), reason: "scam" }),
        404,
        "NOT_FOUND"
      )
    })

    it.each([
      ["reason not in the enum", { reason: "spam" }, "reason"],
      ["reason missing", { reason: undefined }, "reason"],
      ["reported_user_id missing", { reported_user_id: undefined }, "reported_user_id"],
      ["reported_user_id not a UUID", { reported_user_id: "someone" }, "reported_user_id"],
      ["deal_id not a UUID", { deal_id: "deal" }, "deal_id"],
      ["description over 2000 characters", { description: "x".repeat(2001) }, "description"]
    ])("refuses %s with 400 VALIDATION_ERROR naming the field", async (_, change, field) => {
      const made = await m.deal()
      const before = (await adminReports("?per_page=1")).pagination.total
      const error = expectError(
        await report(made.buyer.token, {
          reported_user_id: made.seller.userId,
          deal_id: made.deal.id,
          reason: "scam",
          ...change
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toContain(field)
      expect((await adminReports("?per_page=1")).pagination.total).toBe(before)
    })

    it("needs a token", async () => {
      expectError(
        await m.api().post("/reports", { body: { reported_user_id: unknownId(), reason: "scam" } }),
        401,
        "UNAUTHORIZED"
      )
    })
  })

  describe("GET /admin/reports", () => {
    it("lists reports newest first with reporter, reported_user and deal objects", async () => {
      const first = await fileOne()
      server().clock.advance(1000)
      const reporter = await m.user("Reporter")
      const reported = await m.user("Reported")
      const second = await report(reporter.token, { reported_user_id: reported.userId, reason: "rude" })
      const data = await adminReports("?per_page=50")
      const ids = data.reports.map((r) => r.id)
      expect(ids.indexOf(second.body.data.id)).toBeLessThan(ids.indexOf(first.reportId))
      const withoutDeal = data.reports.find((r) => r.id === second.body.data.id)
      expect(withoutDeal).toEqual({
        id: second.body.data.id,
        reporter: { id: reporter.userId, name: "Reporter", phone_number: reporter.phone, deleted: false },
        reported_user: { id: reported.userId, name: "Reported", phone_number: reported.phone, deleted: false },
        deal: null,
        reason: "rude",
        description: null,
        status: "pending",
        action: null,
        notes: null,
        resolved_at: null,
        created_at: second.body.data.created_at
      })
      const withDeal = data.reports.find((r) => r.id === first.reportId)
      expect(withDeal).toMatchObject({
        reporter: { id: first.buyer.userId, name: "Buyer" },
        reported_user: { id: first.seller.userId, name: "Seller" },
        deal: { id: first.deal.id, request_id: first.request.id, status: "accepted" },
        reason: "no_show",
        description: "Did not come"
      })
      expect(keysOf(withDeal!)).toEqual(keysOf(withoutDeal!))
      expect(data.pagination).toEqual({ current_page: 1, per_page: 50, total: ids.length, last_page: 1 })
    })

    it("filters by status and pages", async () => {
      const a = await fileOne()
      const b = await fileOne()
      const { token } = await m.admin()
      await m.api().put(`/admin/reports/${a.reportId}/resolve`, { token, body: { action: "dismiss" } })
      await m.api().put(`/admin/reports/${b.reportId}/resolve`, { token, body: { action: "warn" } })
      const dismissed = (await adminReports("?status=dismissed&per_page=50")).reports.map((r) => r.id)
      const resolved = (await adminReports("?status=resolved&per_page=50")).reports.map((r) => r.id)
      const pending = (await adminReports("?status=pending&per_page=50")).reports
      expect(dismissed).toContain(a.reportId)
      expect(dismissed).not.toContain(b.reportId)
      expect(resolved).toContain(b.reportId)
      expect(pending.every((r) => r.status === "pending")).toBe(true)
      const all = await adminReports("?per_page=1&page=2")
      expect(all.reports).toHaveLength(1)
      expect(all.pagination.current_page).toBe(2)
      expect(all.pagination.last_page).toBe(all.pagination.total)
    })

    it.each(["status=open", "status=closed", "per_page=0", "per_page=51", "page=0"])(
      "refuses %s with 400",
      async (query) => {
        const { token } = await m.admin()
        expectError(await m.api().get(`/admin/reports?${query}`, { token }), 400, "VALIDATION_ERROR")
      }
    )

    it("is 401 without a token and 403 FORBIDDEN for non-admins", async () => {
      expectError(await m.api().get("/admin/reports"), 401, "UNAUTHORIZED")
      const user = await m.user()
      expectError(await m.api().get("/admin/reports", { token: user.token }), 403, "FORBIDDEN")
    })
  })

  describe("PUT /admin/reports/{id}/resolve", () => {
    it("dismisses: status dismissed, with action, notes and resolved_at", async () => {
      const filed = await fileOne()
      const { token } = await m.admin()
      const response = await m.api().put(`/admin/reports/${filed.reportId}/resolve`, {
        token,
        body: { action: "dismiss", notes: "No evidence" },
        headers: { "accept-language": "en" }
      })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        success: true,
        data: {
          id: filed.reportId,
          status: "dismissed",
          action: "dismiss",
          notes: "No evidence",
          resolved_at: expect.stringMatching(ISO_UTC)
        },
        message: "The report has been handled"
      })
      const listed = (await adminReports("?per_page=50")).reports.find((r) => r.id === filed.reportId)
      expect(listed).toMatchObject({
        status: "dismissed",
        action: "dismiss",
        notes: "No evidence",
        resolved_at: response.body.data.resolved_at
      })
    })

    it("warns: status resolved; the seller keeps selling", async () => {
      const filed = await fileOne()
      const { token } = await m.admin()
      const response = await m
        .api()
        .put(`/admin/reports/${filed.reportId}/resolve`, { token, body: { action: "warn" } })
      expect(response.body.data).toMatchObject({ status: "resolved", action: "warn", notes: null })
      const me = await m.api().get("/users/me", { token: filed.seller.token })
      expect(me.body.data.seller_profile?.status).toBe("approved")
    })

    it("suspend_seller resolves it and suspends the reported seller, who can no longer offer or be seen", async () => {
      const filed = await fileOne()
      const { token } = await m.admin()
      const response = await m.api().put(`/admin/reports/${filed.reportId}/resolve`, {
        token,
        body: { action: "suspend_seller", notes: "Repeated no-shows" }
      })
      expect(response.status).toBe(200)
      expect(response.body.data).toMatchObject({
        status: "resolved",
        action: "suspend_seller",
        notes: "Repeated no-shows"
      })
      const me = await m.api().get("/users/me", { token: filed.seller.token })
      expect(me.body.data.seller_profile?.status).toBe("suspended")
      expectError(await m.api().get(`/seller-profiles/${filed.seller.profileId}`), 404, "NOT_FOUND")
      const buyer = await m.user()
      const posted = await m.request(buyer)
      expectError(
        await m.api().post("/offers", { token: filed.seller.token, body: anOfferBody(posted.id) }),
        403,
        "SELLER_NOT_APPROVED"
      )
      expectError(
        await m.api().put(`/admin/seller-profiles/${filed.seller.profileId}/approve`, { token }),
        422,
        "SELLER_PROFILE_NOT_PENDING"
      )
      expectError(
        await m.api().post("/seller-profiles", {
          token: filed.seller.token,
          body: { business_name: "Again", location_district: "X" }
        }),
        422,
        "SELLER_PROFILE_EXISTS"
      )
    })

    it("suspend_seller about a user without a seller profile only resolves the report", async () => {
      const made = await m.deal()
      const filed = await report(made.seller.token, {
        reported_user_id: made.buyer.userId,
        deal_id: made.deal.id,
        reason: "no_show"
      })
      const { token } = await m.admin()
      const response = await m
        .api()
        .put(`/admin/reports/${filed.body.data.id}/resolve`, { token, body: { action: "suspend_seller" } })
      expect(response.status).toBe(200)
      expect(response.body.data.status).toBe("resolved")
      const me = await m.api().get("/users/me", { token: made.buyer.token })
      expect(me.body.data.seller_profile).toBeNull()
    })

    it("works on pending reports only: 422 REPORT_NOT_PENDING", async () => {
      const filed = await fileOne()
      const { token } = await m.admin()
      await m.api().put(`/admin/reports/${filed.reportId}/resolve`, { token, body: { action: "dismiss" } })
      expectError(
        await m.api().put(`/admin/reports/${filed.reportId}/resolve`, { token, body: { action: "suspend_seller" } }),
        422,
        "REPORT_NOT_PENDING"
      )
      const me = await m.api().get("/users/me", { token: filed.seller.token })
      expect(me.body.data.seller_profile?.status).toBe("approved")
    })

    it.each([
      ["an unknown action", { action: "ban" }, "action"],
      ["no action", { notes: "x" }, "action"],
      ["notes over 2000 characters", { action: "warn", notes: "x".repeat(2001) }, "notes"]
    ])("refuses %s with 400 VALIDATION_ERROR, leaving the report pending", async (_, body, field) => {
      const filed = await fileOne()
      const { token } = await m.admin()
      const error = expectError(
        await m.api().raw.put(`/admin/reports/${filed.reportId}/resolve`, { token, body }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toContain(field)
      const listed = (await adminReports("?status=pending&per_page=50")).reports.map((r) => r.id)
      expect(listed).toContain(filed.reportId)
    })

    it("is 401 without a token, 403 for non-admins (the report stays pending), 404 for unknown ids", async () => {
      const filed = await fileOne()
      const url = `/admin/reports/${filed.reportId}/resolve` as const
      expectError(await m.api().put(url, { body: { action: "dismiss" } }), 401, "UNAUTHORIZED")
      expectError(await m.api().put(url, { token: filed.buyer.token, body: { action: "dismiss" } }), 403, "FORBIDDEN")
      expectError(await m.api().put(url, { token: filed.seller.token, body: { action: "dismiss" } }), 403, "FORBIDDEN")
      const { token } = await m.admin()
      expectError(
        await m.api().put(`/admin/reports/${unknownId()}/resolve`, { token, body: { action: "dismiss" } }),
        404,
        "NOT_FOUND"
      )
      expectError(
        await m.api().put("/admin/reports/zzz/resolve", { token, body: { action: "dismiss" } }),
        404,
        "NOT_FOUND"
      )
      const listed = (await adminReports("?status=pending&per_page=50")).reports.map((r) => r.id)
      expect(listed).toContain(filed.reportId)
    })

    it("of simultaneous resolutions exactly one applies", async () => {
      const filed = await fileOne()
      const { token } = await m.admin()
      const responses = await Promise.all(
        (["dismiss", "warn", "suspend_seller"] as const).map((action) =>
          m.api().put(`/admin/reports/${filed.reportId}/resolve`, { token, body: { action } })
        )
      )
      expect(responses.map((r) => r.status).sort()).toEqual([200, 422, 422])
      const winner = responses.find((r) => r.status === 200)!.body.data.action
      const me = await m.api().get("/users/me", { token: filed.seller.token })
      expect(me.body.data.seller_profile?.status).toBe(winner === "suspend_seller" ? "suspended" : "approved")
    })
  })
})
