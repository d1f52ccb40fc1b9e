import { beforeAll, describe, expect, it } from "vitest"
import {
  ADMIN_PHONE,
  conversationOfOffer,
  expectError,
  expectInLanguage,
  market,
  marketSettings,
  postMessage,
  unknownId
} from "../support/fixtures.js"
import { bothBackends, newPhone, type SignedIn, signIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"

/*
 * The admin API the console runs on, and its audit trail (docs/DECISIONS.md, "Admin API and audit trail"): every
 * admin action writes one entry in its own transaction (a refused action none), reading a report's conversation
 * is audited, suspend and reinstate, reject with a reason, the user look-up, and the log's filters. On both
 * databases. Who may call these at all is admin-access.test.ts; the database's own refusal to rewrite the log is
 * packages/http-server/test/db/audit-log.test.ts; the operator's commands are cli.test.ts.
 */

/** A second admin, who deletes their account once they have acted. */
const LEAVING_ADMIN = "+966551230001"

/** Pushes leave in the background: wait for them. */
const within = { timeout: 10_000, interval: 20 }

interface Entry {
  readonly id: string
  readonly actor: { readonly type: string; readonly id?: string; readonly name?: string | null }
  readonly action: string
  readonly target: { readonly type: string; readonly id: string } | null
  readonly changes: Record<string, { readonly before: unknown; readonly after: unknown }>
  readonly request_id: string | null
  readonly created_at: string
}

describe.each(bothBackends)("admin API and audit trail on %s", (backend) => {
  const { server, databaseUrl } = useServerWithDatabase(backend, {
    settings: { ...marketSettings, adminPhoneNumbers: [ADMIN_PHONE, LEAVING_ADMIN] }
  })
  const m = market(server)
  const api = () => m.api()
  let admin: SignedIn

  beforeAll(async () => {
    admin = await m.admin()
    m.expectStatus(await api().put("/users/me", { token: admin.token, body: { name: "Noura" } }), 200, "name")
  }, 60_000)

  /** The audit log's entries for a query, as the admin reads it. */
  const audit = async (query = ""): Promise<ReadonlyArray<Entry>> =>
    m.expectStatus(
      await api().get(`/admin/audit-log?per_page=50${query}`, { token: admin.token }),
      200,
      `GET /admin/audit-log${query}`
    ).body.data.entries as ReadonlyArray<Entry>

  const entriesAbout = (targetId: string) => audit(`&target_id=${targetId}`)

  const register = async (user: SignedIn, language: "ar" | "en") => {
    m.expectStatus(await api().put("/users/me", { token: user.token, body: { language } }), 200, "language")
    m.expectStatus(
      await api().post("/device-tokens", {
        token: user.token,
        body: { platform: "android", push_token: `device-${user.userId}` }
      }),
      201,
      "device"
    )
  }

  const fileReport = async (reporter: SignedIn, reported: SignedIn, dealId?: string) =>
    m.expectStatus(
      await api().post("/reports", {
        token: reporter.token,
        body: { reported_user_id: reported.userId, reason: "scam", ...(dealId ? { deal_id: dealId } : {}) }
      }),
      201,
      "report"
    ).body.data.id as string

  it("refuses every new admin route to a buyer and to a seller (403) and without a token (401), recording nothing", async () => {
    const buyer = await m.user("Not an admin")
    const seller = await m.seller("Not an admin either")
    const reportId = await fileReport(buyer, seller)
    const logBefore = await audit()
    const reads = [
      "/admin/audit-log",
      `/admin/reports/${reportId}`,
      `/admin/users/${seller.userId}`,
      `/admin/users?phone=${encodeURIComponent(seller.phone)}`
    ]
    const writes = [
      `/admin/seller-profiles/${seller.profileId}/suspend`,
      `/admin/seller-profiles/${seller.profileId}/reinstate`,
      `/admin/seller-profiles/${seller.profileId}/reject`
    ]
    for (const caller of [buyer, seller]) {
      for (const path of reads) expectError(await api().raw.get(path, { token: caller.token }), 403, "FORBIDDEN")
      for (const path of writes) {
        expectError(await api().raw.put(path, { token: caller.token, body: { reason: "Because" } }), 403, "FORBIDDEN")
      }
    }
    for (const path of reads) expectError(await api().raw.get(path), 401, "UNAUTHORIZED")
    for (const path of writes) expectError(await api().raw.put(path, { body: { reason: "x" } }), 401, "UNAUTHORIZED")
    expect(await audit()).toEqual(logBefore)
    m.expectStatus(await api().get(`/seller-profiles/${seller.profileId}`), 200, "still approved")
  })

  describe("seller applications", () => {
    it("approve writes one entry: the admin, the profile, the status before and after, the request id and the time", async () => {
      const applicant = await m.applicant("Applicant")
      const before = Date.now()
      const approved = await api().put(`/admin/seller-profiles/${applicant.profileId}/approve`, {
        token: admin.token,
        headers: { "x-request-id": `approve-${applicant.profileId}` }
      })
      m.expectStatus(approved, 200, "approve")
      const entries = await entriesAbout(applicant.profileId)
      expect(entries).toEqual([
        {
          id: expect.any(String),
          actor: { type: "admin", id: admin.userId, name: "Noura" },
          action: "seller_profile.approve",
          target: { type: "seller_profile", id: applicant.profileId },
          changes: { status: { before: "pending", after: "approved" } },
          request_id: `approve-${applicant.profileId}`,
          created_at: expect.any(String)
        }
      ])
      // Written in the approve's transaction, just after it.
      const recordedAt = Date.parse(entries[0]!.created_at)
      expect(recordedAt).toBeGreaterThanOrEqual(Date.parse(approved.body.data.approved_at))
      expect(recordedAt).toBeGreaterThanOrEqual(before)
      expect(recordedAt).toBeLessThan(Date.parse(approved.body.data.approved_at) + 5_000)
    })

    it("a refused approve or reject (not pending) leaves no entry, and says why in the admin's language", async () => {
      const applicant = await m.applicant("Twice")
      m.expectStatus(
        await api().put(`/admin/seller-profiles/${applicant.profileId}/approve`, { token: admin.token }),
        200,
        "approve"
      )
      for (const language of ["ar", "en"] as const) {
        const again = await api().put(`/admin/seller-profiles/${applicant.profileId}/approve`, {
          token: admin.token,
          headers: { "accept-language": language }
        })
        expectInLanguage(expectError(again, 422, "SELLER_PROFILE_NOT_PENDING").message, language)
        expectError(
          await api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, {
            token: admin.token,
            body: { reason: "Too late" }
          }),
          422,
          "SELLER_PROFILE_NOT_PENDING"
        )
      }
      expect((await entriesAbout(applicant.profileId)).map((e) => e.action)).toEqual(["seller_profile.approve"])
      expectError(
        await api().put(`/admin/seller-profiles/${unknownId()}/approve`, { token: admin.token }),
        404,
        "NOT_FOUND"
      )
    })

    it("reject with a reason: shown on GET /users/me, pushed in the applicant's language, and recorded", async () => {
      for (const language of ["ar", "en"] as const) {
        const applicant = await m.applicant(`Rejected ${language}`)
        await register(applicant, language)
        const reason = "The commercial registration does not match the business name."
        const rejected = await api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, {
          token: admin.token,
          body: { reason: `  ${reason}  ` }
        })
        expect(m.expectStatus(rejected, 200, "reject").body.data).toEqual({
          id: applicant.profileId,
          status: "rejected",
          rejection_reason: reason
        })
        const me = m.expectStatus(await api().get("/users/me", { token: applicant.token }), 200, "me").body.data
        expect(me.seller_profile).toMatchObject({ status: "rejected", rejection_reason: reason })

        await expect.poll(() => server().pushes.to(applicant.userId).length, within).toBe(1)
        const [push] = server().pushes.to(applicant.userId)
        expect(push).toMatchObject({
          type: "seller_profile_rejected",
          data: { seller_profile_id: applicant.profileId }
        })
        expectInLanguage(push!.title, language)
        expect(push!.body).toContain(reason)
        expectInLanguage(push!.body.replace(reason, ""), language)

        expect(await entriesAbout(applicant.profileId)).toMatchObject([
          {
            action: "seller_profile.reject",
            actor: { type: "admin", id: admin.userId },
            changes: {
              status: { before: "pending", after: "rejected" },
              rejection_reason: { before: null, after: reason }
            }
          }
        ])
      }
    })

    it("reject without a body still works: no reason on GET /users/me, a push that points to the app", async () => {
      const applicant = await m.applicant("No reason")
      await register(applicant, "en")
      const rejected = await api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, { token: admin.token })
      expect(m.expectStatus(rejected, 200, "reject").body.data.rejection_reason).toBeNull()
      const me = m.expectStatus(await api().get("/users/me", { token: applicant.token }), 200, "me").body.data
      expect(me.seller_profile?.rejection_reason).toBeNull()
      await expect.poll(() => server().pushes.to(applicant.userId).length, within).toBe(1)
      expect(server().pushes.to(applicant.userId)[0]).toMatchObject({
        type: "seller_profile_rejected",
        title: "Your seller application was not approved",
        body: "See your profile in the app for details"
      })
    })

    it("a reason that is empty, too long or not a string is a 400 that changes nothing", async () => {
      const applicant = await m.applicant("Bad reason")
      for (const reason of ["   ", "x".repeat(501), 42]) {
        expectError(
          await api().raw.put(`/admin/seller-profiles/${applicant.profileId}/reject`, {
            token: admin.token,
            body: { reason }
          }),
          400,
          "VALIDATION_ERROR",
          ["reason"]
        )
      }
      expect(await entriesAbout(applicant.profileId)).toEqual([])
      const me = m.expectStatus(await api().get("/users/me", { token: applicant.token }), 200, "me").body.data
      expect(me.seller_profile?.status).toBe("pending")
    })
  })

  describe("suspend and reinstate", () => {
    it("suspend rejects the seller's pending offers in the same transaction, hides the public profile, and is recorded; reinstate undoes the status", async () => {
      const seller = await m.seller("Suspended")
      const buyer = await m.user("Buyer")
      const request = await m.request(buyer)
      const offer = await m.offer(seller, request.id)
      // Read once so the read cache holds it: the suspension must drop it.
      m.expectStatus(await api().get(`/seller-profiles/${seller.profileId}`), 200, "public profile")

      const suspended = await api().put(`/admin/seller-profiles/${seller.profileId}/suspend`, {
        token: admin.token,
        body: { reason: "Fake phones" }
      })
      expect(m.expectStatus(suspended, 200, "suspend").body.data).toEqual({
        id: seller.profileId,
        status: "suspended",
        rejected_offer_ids: [offer.id]
      })
      expectError(await api().get(`/seller-profiles/${seller.profileId}`), 404, "NOT_FOUND")
      const offers = m.expectStatus(
        await api().get(`/requests/${request.id}/offers`, { token: buyer.token }),
        200,
        "offers"
      ).body.data.offers
      expect(offers.map((o) => [o.id, o.status])).toEqual([[offer.id, "rejected"]])
      expectError(
        await api().post("/offers", {
          token: seller.token,
          body: { request_id: request.id, price: 900, availability: "Now" }
        }),
        403,
        "SELLER_NOT_APPROVED"
      )

      const reinstated = await api().put(`/admin/seller-profiles/${seller.profileId}/reinstate`, {
        token: admin.token,
        body: { reason: "Cleared" }
      })
      expect(m.expectStatus(reinstated, 200, "reinstate").body.data).toEqual({
        id: seller.profileId,
        status: "approved"
      })
      m.expectStatus(await api().get(`/seller-profiles/${seller.profileId}`), 200, "public again")

      expect(await entriesAbout(seller.profileId)).toMatchObject([
        {
          action: "seller_profile.reinstate",
          changes: { status: { before: "suspended", after: "approved" }, reason: { before: null, after: "Cleared" } }
        },
        {
          action: "seller_profile.suspend",
          changes: {
            status: { before: "approved", after: "suspended" },
            rejected_offer_ids: { before: [], after: [offer.id] },
            reason: { before: null, after: "Fake phones" }
          }
        },
        { action: "seller_profile.approve" }
      ])
    })

    it("suspend works on approved profiles only, reinstate on suspended ones: 422 in the admin's language, no entry", async () => {
      const applicant = await m.applicant("Pending")
      const seller = await m.seller("Approved")
      for (const language of ["ar", "en"] as const) {
        const headers = { "accept-language": language }
        const body = { reason: "Because" }
        expectInLanguage(
          expectError(
            await api().put(`/admin/seller-profiles/${applicant.profileId}/suspend`, {
              token: admin.token,
              body,
              headers
            }),
            422,
            "SELLER_PROFILE_NOT_APPROVED"
          ).message,
          language
        )
        expectInLanguage(
          expectError(
            await api().put(`/admin/seller-profiles/${seller.profileId}/reinstate`, {
              token: admin.token,
              body,
              headers
            }),
            422,
            "SELLER_PROFILE_NOT_SUSPENDED"
          ).message,
          language
        )
      }
      m.expectStatus(
        await api().put(`/admin/seller-profiles/${seller.profileId}/suspend`, {
          token: admin.token,
          body: { reason: "Once" }
        }),
        200,
        "suspend"
      )
      expectError(
        await api().put(`/admin/seller-profiles/${seller.profileId}/suspend`, {
          token: admin.token,
          body: { reason: "Twice" }
        }),
        422,
        "SELLER_PROFILE_NOT_APPROVED"
      )
      expect(await entriesAbout(applicant.profileId)).toEqual([])
      expect((await entriesAbout(seller.profileId)).map((e) => e.action)).toEqual([
        "seller_profile.suspend",
        "seller_profile.approve"
      ])
      for (const path of ["suspend", "reinstate"]) {
        expectError(
          await api().raw.put(`/admin/seller-profiles/${seller.profileId}/${path}`, { token: admin.token }),
          400,
          "VALIDATION_ERROR"
        )
        expectError(
          await api().raw.put(`/admin/seller-profiles/${seller.profileId}/${path}`, {
            token: admin.token,
            body: {}
          }),
          400,
          "VALIDATION_ERROR",
          ["reason"]
        )
        expectError(
          await api().put(`/admin/seller-profiles/${unknownId()}/${path as "suspend"}`, {
            token: admin.token,
            body: { reason: "Nobody" }
          }),
          404,
          "NOT_FOUND"
        )
      }
    })
  })

  describe("reports", () => {
    it("GET /admin/reports/{id} answers the report with its context and the deal's conversation, and records the read", async () => {
      const made = await m.deal()
      const conversationId = await conversationOfOffer(api(), made.buyer, made.offer.id)
      await postMessage(api(), made.buyer, conversationId, "Call me on 0501234567")
      await postMessage(api(), made.seller, conversationId, "On my way")
      const earlier = await fileReport(await m.user("Earlier"), made.seller)
      const reportId = await fileReport(made.buyer, made.seller, made.deal.id)

      const read = await api().get(`/admin/reports/${reportId}`, {
        token: admin.token,
        headers: { "x-request-id": `view-${reportId}` }
      })
      const report = m.expectStatus(read, 200, "GET /admin/reports/{id}").body.data
      expect(report).toMatchObject({
        id: reportId,
        reporter: { id: made.buyer.userId, name: "Buyer", deleted: false },
        reported_user: {
          id: made.seller.userId,
          name: "Seller",
          deleted: false,
          seller_profile: { id: made.seller.profileId, status: "approved" },
          reports_received: 2
        },
        deal: { id: made.deal.id, offer_id: made.offer.id, status: "accepted", conversation_id: conversationId },
        reason: "scam",
        status: "pending"
      })
      // Unmasked: the admin reads what was sent.
      expect(report.messages.map((message) => [message.sender_id, message.message_text])).toEqual([
        [made.buyer.userId, "Call me on 0501234567"],
        [made.seller.userId, "On my way"]
      ])
      expect(report.has_more_messages).toBe(false)
      expect(await entriesAbout(reportId)).toEqual([
        {
          id: expect.any(String),
          actor: { type: "admin", id: admin.userId, name: "Noura" },
          action: "report.view",
          target: { type: "report", id: reportId },
          changes: {},
          request_id: `view-${reportId}`,
          created_at: expect.any(String)
        }
      ])

      const withoutDeal = m.expectStatus(
        await api().get(`/admin/reports/${earlier}`, { token: admin.token }),
        200,
        "report without a deal"
      ).body.data
      expect(withoutDeal.deal).toBeNull()
      expect(withoutDeal.messages).toEqual([])
      expect(withoutDeal.has_more_messages).toBe(false)
      expectError(await api().get(`/admin/reports/${unknownId()}`, { token: admin.token }), 404, "NOT_FOUND")
      expect((await audit("&action=report.view")).filter((e) => e.target?.id === earlier)).toHaveLength(1)
    })

    it.runIf(backend === "postgres")(
      "shows the newest 1,000 messages of a longer conversation, oldest first, and says there are more (PostgreSQL: the rows are arranged directly)",
      async () => {
        const made = await m.deal()
        const conversationId = await conversationOfOffer(api(), made.buyer, made.offer.id)
        await runSql(
          databaseUrl()!,
          (sql) => sql`INSERT INTO messages (id, conversation_id, sender_id, message_text, seq, created_at)
            SELECT gen_random_uuid(), ${conversationId}, ${made.buyer.userId}, 'message ' || n, n,
                   now() - make_interval(secs => 2000 - n)
            FROM generate_series(1, 1001) AS n`
        )
        const reportId = await fileReport(made.buyer, made.seller, made.deal.id)
        const report = m.expectStatus(
          await api().get(`/admin/reports/${reportId}`, { token: admin.token }),
          200,
          "long conversation"
        ).body.data
        expect(report.messages).toHaveLength(1000)
        expect(report.messages[0]!.message_text).toBe("message 2")
        expect(report.messages.at(-1)!.message_text).toBe("message 1001")
        expect(report.has_more_messages).toBe(true)
      }
    )

    it("of two admins resolving one report at once, one wins and one gets REPORT_NOT_PENDING: one entry", async () => {
      const other = await signIn(server(), api(), LEAVING_ADMIN)
      const reported = await m.seller("Raced")
      const reportId = await fileReport(await m.user("Reporter"), reported)
      const answers = await Promise.all(
        [admin, other].map((by) =>
          api().put(`/admin/reports/${reportId}/resolve`, { token: by.token, body: { action: "warn" } })
        )
      )
      expect(answers.map((a) => a.status).sort()).toEqual([200, 422])
      expectError(answers.find((a) => a.status === 422)!, 422, "REPORT_NOT_PENDING")
      const entries = await entriesAbout(reportId)
      expect(entries.map((e) => e.action)).toEqual(["report.resolve"])
      const winner = [admin, other][answers.findIndex((a) => a.status === 200)]!
      expect(entries[0]!.actor.id).toBe(winner.userId)
    })

    it("resolve writes one report.resolve entry per action; a report resolved already (or meanwhile) leaves no second one", async () => {
      for (const action of ["dismiss", "warn", "suspend_seller"] as const) {
        const seller = await m.seller(`Reported ${action}`)
        const buyer = await m.user("Buyer")
        const request = await m.request(buyer)
        const offer = await m.offer(seller, request.id)
        const reportId = await fileReport(buyer, seller)
        m.expectStatus(
          await api().put(`/admin/reports/${reportId}/resolve`, {
            token: admin.token,
            body: { action, notes: `Handled: ${action}` }
          }),
          200,
          "resolve"
        )
        for (const language of ["ar", "en"] as const) {
          const again = await api().put(`/admin/reports/${reportId}/resolve`, {
            token: admin.token,
            body: { action: "warn" },
            headers: { "accept-language": language }
          })
          expectInLanguage(expectError(again, 422, "REPORT_NOT_PENDING").message, language)
        }
        const entries = await entriesAbout(reportId)
        expect(entries).toHaveLength(1)
        expect(entries[0]).toMatchObject({
          action: "report.resolve",
          actor: { type: "admin", id: admin.userId },
          changes: {
            status: { before: "pending", after: action === "dismiss" ? "dismissed" : "resolved" },
            action: { before: null, after: action },
            notes: { before: null, after: `Handled: ${action}` }
          }
        })
        if (action === "suspend_seller") {
          expect(entries[0]!.changes).toMatchObject({
            seller_profile_id: { before: null, after: seller.profileId },
            seller_profile_status: { before: "approved", after: "suspended" },
            rejected_offer_ids: { before: [], after: [offer.id] }
          })
        } else {
          expect(Object.keys(entries[0]!.changes).sort()).toEqual(["action", "notes", "status"])
        }
      }
    })
  })

  describe("users", () => {
    it("GET /admin/users?phone= finds one user by exact E.164 number, or none; anything else is a 400", async () => {
      const phone = newPhone()
      const user = await signIn(server(), api(), phone)
      const found = m.expectStatus(
        await api().get(`/admin/users?phone=${encodeURIComponent(phone)}`, { token: admin.token }),
        200,
        "find"
      ).body.data.users
      expect(found.map((u) => u.id)).toEqual([user.userId])
      expect(found[0]).toMatchObject({ phone_number: phone, deleted: false, seller_profile: null })
      const none = m.expectStatus(
        await api().get(`/admin/users?phone=${encodeURIComponent(newPhone())}`, { token: admin.token }),
        200,
        "find none"
      ).body.data.users
      expect(none).toEqual([])
      for (const query of [
        "",
        "?phone=",
        `?phone=${phone.slice(1)}`,
        `?phone=${encodeURIComponent(phone.slice(0, 6))}x`
      ]) {
        expectError(await api().raw.get(`/admin/users${query}`, { token: admin.token }), 400, "VALIDATION_ERROR", [
          "phone"
        ])
      }
    })

    it("GET /admin/users/{id} answers the user with their number, seller profile and counts", async () => {
      const made = await m.deal()
      const other = await m.request(made.buyer)
      await fileReport(made.buyer, made.seller, made.deal.id)
      await fileReport(made.seller, made.buyer)
      const seller = m.expectStatus(
        await api().get(`/admin/users/${made.seller.userId}`, { token: admin.token }),
        200,
        "seller"
      ).body.data
      expect(seller).toMatchObject({
        id: made.seller.userId,
        name: "Seller",
        deleted: false,
        is_admin: false,
        seller_profile: { id: made.seller.profileId, status: "approved", rejection_reason: null },
        counts: { requests: 0, offers: 1, deals: 1, reports_made: 1, reports_received: 1 }
      })
      expect(seller.phone_number).toMatch(/^\+9665/)
      const buyer = m.expectStatus(
        await api().get(`/admin/users/${made.buyer.userId}`, { token: admin.token }),
        200,
        "buyer"
      ).body.data
      expect(buyer.counts).toEqual({ requests: 2, offers: 0, deals: 1, reports_made: 1, reports_received: 1 })
      expect(other.id).toBeTruthy()
      expectError(await api().get(`/admin/users/${unknownId()}`, { token: admin.token }), 404, "NOT_FOUND")
    })

    it("a deleted admin's entries and a deleted target's stay as they were; the user shows as deleted", async () => {
      const leaving = await signIn(server(), api(), LEAVING_ADMIN)
      m.expectStatus(await api().put("/users/me", { token: leaving.token, body: { name: "Leaving" } }), 200, "name")
      const applicant = await m.applicant("Also leaving")
      m.expectStatus(
        await api().put(`/admin/seller-profiles/${applicant.profileId}/reject`, {
          token: leaving.token,
          body: { reason: "No" }
        }),
        200,
        "reject"
      )
      // Newest first: the reject is theirs last (the race above may have given them an earlier one).
      const before = await audit(`&actor_id=${leaving.userId}`)
      await server().deleteUser(LEAVING_ADMIN)
      await server().deleteUser(applicant.phone)

      expect(await audit(`&actor_id=${leaving.userId}`)).toEqual(before)
      expect(before[0]).toMatchObject({
        actor: { type: "admin", id: leaving.userId, name: "Leaving" },
        target: { type: "seller_profile", id: applicant.profileId }
      })
      const gone = m.expectStatus(
        await api().get(`/admin/users/${leaving.userId}`, { token: admin.token }),
        200,
        "deleted admin"
      ).body.data
      expect(gone).toMatchObject({ id: leaving.userId, name: null, phone_number: null, deleted: true })
      expect(
        m.expectStatus(await api().get(`/admin/users/${applicant.userId}`, { token: admin.token }), 200, "deleted").body
          .data.deleted
      ).toBe(true)
    })
  })

  describe("GET /admin/audit-log", () => {
    it("lists newest first, pages as every list, and filters by action, actor, target and time", async () => {
      const first = await m.applicant("First")
      const second = await m.applicant("Second")
      m.expectStatus(
        await api().put(`/admin/seller-profiles/${first.profileId}/approve`, { token: admin.token }),
        200,
        "approve"
      )
      const between = new Date(Date.parse((await entriesAbout(first.profileId))[0]!.created_at) + 1)
      server().clock.advance(1_000)
      m.expectStatus(
        await api().put(`/admin/seller-profiles/${second.profileId}/reject`, { token: admin.token }),
        200,
        "reject"
      )

      const all = await audit()
      const times = all.map((e) => Date.parse(e.created_at))
      expect(times).toEqual([...times].sort((a, b) => b - a))
      expect(all.findIndex((e) => e.target?.id === second.profileId)).toBeLessThan(
        all.findIndex((e) => e.target?.id === first.profileId)
      )

      const paged = m.expectStatus(
        await api().get("/admin/audit-log?per_page=1&page=2", { token: admin.token }),
        200,
        "page 2"
      ).body.data
      expect(paged.entries).toEqual([all[1]])
      expect(paged.pagination).toMatchObject({ current_page: 2, per_page: 1 })
      expect(paged.pagination.total).toBeGreaterThanOrEqual(2)

      expect((await audit("&action=seller_profile.reject")).every((e) => e.action === "seller_profile.reject")).toBe(
        true
      )
      expect((await audit(`&action=seller_profile.reject&target_id=${second.profileId}`)).length).toBe(1)
      expect(await audit(`&action=seller_profile.approve&target_id=${second.profileId}`)).toEqual([])
      expect((await audit(`&actor_id=${admin.userId}`)).every((e) => e.actor.id === admin.userId)).toBe(true)
      expect(await audit(`&actor_id=${unknownId()}`)).toEqual([])
      const since = encodeURIComponent(between.toISOString())
      const after = await audit(`&from=${since}`)
      expect(after.map((e) => e.target?.id)).toEqual([second.profileId])
      const upTo = await audit(`&to=${since}&target_id=${first.profileId}`)
      expect(upTo.map((e) => e.action)).toEqual(["seller_profile.approve"])
      expect(await audit(`&to=${since}&target_id=${second.profileId}`)).toEqual([])

      for (const query of [
        "?action=seller_profile.delete",
        "?actor_id=not-an-id",
        "?target_id=42",
        "?from=yesterday",
        "?to=2025-13-01T00:00:00Z",
        "?per_page=51",
        "?page=0"
      ]) {
        expectError(await api().raw.get(`/admin/audit-log${query}`, { token: admin.token }), 400, "VALIDATION_ERROR")
      }
    })
  })
})
