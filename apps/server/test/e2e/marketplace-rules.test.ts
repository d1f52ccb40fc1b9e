import type { RequestBody, ResponseData } from "@talab/client-sdk/types"
import { beforeAll, describe, expect, it } from "vitest"
import {
  expectError,
  expectInLanguage,
  type Language,
  languages,
  Marketplace,
  marketplaceSettings,
  offerBody,
  profileBody,
  requestBody,
  type Seller,
  unknownId
} from "../support/fixtures.js"
import { backends, client, newPhone, type Response, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"

/*
 * The marketplace's rules as decisions.md states them: field rules (section 2: one probe per endpoint, the rules
 * case by case being unit tests of the contract's schemas, packages/contract/test/field-rules.test.ts),
 * transitions and their 422 codes (section 3), lists (section 5), errors (section 6) and edge rules (section 11).
 * Every refused write is followed by a read-back showing that it changed nothing.
 */

type ReportOf = ResponseData<"/reports", "post">

type Method = "GET" | "POST" | "PUT" | "DELETE"
interface Call {
  readonly method: Method
  readonly path: string
  readonly body?: unknown
  readonly rawBody?: string
  readonly headers?: Record<string, string>
}

const long = (length: number) => "x".repeat(length)
const without = (body: Record<string, unknown>, key: string) => {
  const { [key]: _, ...rest } = body
  return rest
}

/** A refused write must leave what `read` sees exactly as it was. */
const unchanged = async (read: () => Promise<unknown>, refused: () => Promise<unknown>) => {
  const before = await read()
  await refused()
  expect(await read()).toEqual(before)
}

describe.each(backends)("marketplace rules on %s", (backend) => {
  const adminPhone = newPhone()
  const { server, databaseUrl } = useServerWithDatabase(backend, marketplaceSettings([adminPhone]))
  let m: Marketplace
  beforeAll(() => {
    m = new Marketplace(server(), client(server()), adminPhone)
  })

  const send = (call: Call, caller?: SignedIn, language?: Language): Promise<Response> =>
    m.api.raw.call(call.method, call.path, {
      ...(caller ? { token: caller.token } : {}),
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(call.rawBody !== undefined ? { rawBody: call.rawBody } : {}),
      headers: { ...call.headers, ...(language ? { "accept-language": language } : {}) }
    })

  /** The token of a caller (none for anonymous) and the language it asks for, as options of a typed call. */
  const asCaller = (caller: SignedIn | undefined, language: Language) => ({
    ...(caller ? { token: caller.token } : {}),
    headers: { "accept-language": language }
  })

  /** Asserts a 400 whose message and `details` messages are in the language, with `field` among the details. */
  const expectValidation = (response: Response, field: string | undefined, language: Language) => {
    expectError(response, 400, "VALIDATION_ERROR")
    expectInLanguage(response.body.error.message, language)
    const details = response.body.error.details
    expect(typeof details).toBe("object")
    if (field !== undefined) {
      expect(Object.keys(details), JSON.stringify(details)).toContain(field)
      expect(Array.isArray(details[field])).toBe(true)
      expect(details[field].length).toBeGreaterThan(0)
    }
    for (const messages of Object.values(details) as Array<Array<unknown>>) {
      for (const message of messages) expectInLanguage(message, language)
    }
  }

  // ---------------------------------------------------------------------------------------------------
  describe("field rules (decisions.md section 2): 400 VALIDATION_ERROR, details name the field, nothing written", () => {
    /*
     * The rules case by case (each bound, enum, money and text rule of every body and query) are unit tests of the
     * endpoints' own schemas: packages/contract/test/field-rules.test.ts. Here, one probe per endpoint shows the
     * server answering a schema's refusal as the envelope (details naming the field, messages in the language) and
     * writing nothing, and the tests below it cover what only the server does: the body's parsing, the language,
     * defaults a handler fills in, what the database stores, path ids.
     */
    /** Shared resources of the validation cases, made on first use. */
    const made = new Map<string, Promise<any>>()
    const once = <A>(key: string, make: () => Promise<A>): Promise<A> => {
      if (!made.has(key)) made.set(key, make())
      return made.get(key) as Promise<A>
    }
    const buyer = () => once("buyer", () => m.buyer("Validation Buyer"))
    const seller = () => once("seller", () => m.approvedSeller("Validation Seller"))
    const profileless = () => once("profileless", () => m.buyer("No Profile Yet"))
    const openRequest = () => once("openRequest", async () => m.createRequest(await buyer()))
    const acceptedDeal = () => once("deal", async () => (await m.deal(await buyer(), await seller())).deal)
    const completedDeal = () =>
      once("completedDeal", async () => (await m.completedDeal(await buyer(), await seller())).deal)
    const pendingReport = () => once("report", async () => m.report(await buyer(), (await seller()).userId))
    const conversation = () =>
      once("conversation", async () => {
        const { offer } = await m.pendingOffer(await buyer(), await seller())
        return m.conversationOf(await buyer(), offer.id)
      })

    type CallerName = "buyer" | "seller" | "profileless" | "admin"
    const callerOf = (name: CallerName): Promise<SignedIn> =>
      name === "admin" ? m.adminUser() : name === "buyer" ? buyer() : name === "seller" ? seller() : profileless()

    interface Invalid {
      readonly name: string
      readonly caller: CallerName
      readonly call: () => Promise<Call>
      /** The field `details` must name; undefined when the body as a whole is wrong. */
      readonly field: string | undefined
      /** What the refused call must not change. */
      readonly state?: () => Promise<unknown>
    }

    const myRequestCount = async () =>
      (await m.api.get("/requests/my?per_page=1", { token: (await buyer()).token })).body.data.pagination.total
    const openRequestState = async () => {
      const request = await m.requestDetail(await buyer(), (await openRequest()).id)
      return { offerCount: request.offer_count, sellerOffers: (await m.myOffers(await seller())).length }
    }
    const profilelessState = async () => (await m.me(await profileless())).seller_profile
    const dealState = async () => {
      const deal = await m.dealDetail(await buyer(), (await acceptedDeal()).id)
      return [deal.status, deal.cancelled_at, deal.completed_at]
    }
    const sellerRatingState = async () => {
      const profile = (await m.me(await seller())).seller_profile
      return [profile?.rating_avg, profile?.rating_count]
    }
    const reportCount = async () => {
      const admin = await m.adminUser()
      return (await m.api.get("/admin/reports?per_page=1", { token: admin.token })).body.data.pagination.total
    }
    const pendingReportState = async () => {
      const report = await m.adminReport((await pendingReport()).id)
      return [report.status, report.action ?? null]
    }
    const messageCount = async () => {
      const response = await m.api.get(`/conversations/${(await conversation()).id}/messages?limit=100`, {
        token: (await buyer()).token
      })
      return response.body.data.messages.length
    }

    const requestCase = (name: string, body: Record<string, unknown>, field: string | undefined): Invalid => ({
      name: `POST /requests: ${name}`,
      caller: "buyer",
      call: async () => ({ method: "POST", path: "/requests", body }),
      field,
      state: myRequestCount
    })
    const rawRequestCase = (name: string, rawBody: string): Invalid => ({
      name: `POST /requests: ${name}`,
      caller: "buyer",
      call: async () => ({
        method: "POST",
        path: "/requests",
        rawBody,
        headers: { "content-type": "application/json" }
      }),
      field: undefined,
      state: myRequestCount
    })
    const offerCase = (name: string, body: (requestId: string) => Record<string, unknown>, field: string): Invalid => ({
      name: `POST /offers: ${name}`,
      caller: "seller",
      call: async () => ({ method: "POST", path: "/offers", body: body((await openRequest()).id) }),
      field,
      state: openRequestState
    })
    const profileCase = (name: string, body: Record<string, unknown>, field: string): Invalid => ({
      name: `POST /seller-profiles: ${name}`,
      caller: "profileless",
      call: async () => ({ method: "POST", path: "/seller-profiles", body }),
      field,
      state: profilelessState
    })
    const cancelCase = (name: string, body: Record<string, unknown>, field: string): Invalid => ({
      name: `PUT /deals/{id}/cancel: ${name}`,
      caller: "buyer",
      call: async () => ({ method: "PUT", path: `/deals/${(await acceptedDeal()).id}/cancel`, body }),
      field,
      state: dealState
    })
    const ratingCase = (name: string, body: (dealId: string) => Record<string, unknown>, field: string): Invalid => ({
      name: `POST /ratings: ${name}`,
      caller: "buyer",
      call: async () => ({ method: "POST", path: "/ratings", body: body((await completedDeal()).id) }),
      field,
      state: sellerRatingState
    })
    const reportCase = (name: string, body: (sellerId: string) => Record<string, unknown>, field: string): Invalid => ({
      name: `POST /reports: ${name}`,
      caller: "buyer",
      call: async () => ({ method: "POST", path: "/reports", body: body((await seller()).userId) }),
      field,
      state: reportCount
    })
    const resolveCase = (name: string, body: Record<string, unknown>, field: string): Invalid => ({
      name: `PUT /admin/reports/{id}/resolve: ${name}`,
      caller: "admin",
      call: async () => ({ method: "PUT", path: `/admin/reports/${(await pendingReport()).id}/resolve`, body }),
      field,
      state: pendingReportState
    })
    const messageCase = (name: string, body: Record<string, unknown>, field: string): Invalid => ({
      name: `POST /conversations/{id}/messages: ${name}`,
      caller: "buyer",
      call: async () => ({ method: "POST", path: `/conversations/${(await conversation()).id}/messages`, body }),
      field,
      state: messageCount
    })
    const queryCase = (caller: CallerName, path: string, field: string): Invalid => ({
      name: `GET ${path}`,
      caller,
      call: async () => ({
        method: "GET",
        path: path.includes("{conversation}") ? path.replace("{conversation}", (await conversation()).id) : path
      }),
      field
    })
    const messagesQuery = (query: string) => `/conversations/{conversation}/messages?${query}`

    /** One refusal per endpoint with field rules, body or query; the rest of each endpoint's rules are unit tests. */
    const probes: ReadonlyArray<Invalid> = [
      requestCase("budget_max below budget_min", requestBody({ budget_min: 500, budget_max: 499.99 }), "budget_max"),
      offerCase("price with 3 decimals", (id) => offerBody(id, { price: 12.345 }), "price"),
      // One character (an emoji) of two UTF-16 units: a 400 naming the field, not a server error.
      profileCase("business_name of one emoji", profileBody({ business_name: "📱" }), "business_name"),
      cancelCase("reason missing", { description: "no reason" }, "reason"),
      ratingCase("rating 3.5", (deal) => ({ deal_id: deal, rating: 3.5 }), "rating"),
      reportCase("reason not in the enum", (user) => ({ reported_user_id: user, reason: "spam" }), "reason"),
      resolveCase("action not in the list", { action: "ban" }, "action"),
      messageCase("message_text only spaces", { message_text: "   " }, "message_text"),

      queryCase("buyer", "/requests?category=laptop", "category"),
      // A NUL (%00) in a filter: decoded from the query string, refused before any SQL sees it.
      queryCase("buyer", "/requests?location_city=Riy%00adh", "location_city"),
      queryCase("buyer", "/requests/my?status=open", "status"),
      queryCase("seller", "/offers/my?status=cancelled", "status"),
      queryCase("buyer", "/deals/my?role=admin", "role"),
      queryCase("buyer", "/conversations/my?per_page=51", "per_page"),
      queryCase("admin", "/admin/reports?status=open", "status"),
      queryCase("admin", "/admin/seller-profiles/pending?per_page=51", "per_page"),
      queryCase("buyer", messagesQuery("before=yesterday"), "before"),

      // The body as the server reads it, before any schema (decisions.md section 2 and 11).
      requestCase("a JSON array body", [] as unknown as Record<string, unknown>, undefined),
      rawRequestCase("a body that is not JSON", "category=phone"),
      rawRequestCase("a JSON body of null", "null"),
      rawRequestCase("an empty JSON body", "")
    ]

    // Each probe once, in Arabic and English by turns: the choice of language has its own test below.
    it.each(probes.map((c, i) => [c.name, languages[i % languages.length] as Language, c] as const))(
      "%s (in %s)",
      async (_, language, c) => {
        const caller = await callerOf(c.caller)
        const refused = async () => expectValidation(await send(await c.call(), caller, language), c.field, language)
        if (c.state) await unchanged(c.state, refused)
        else await refused()
      }
    )

    it("reports every failing field at once", async () => {
      const response = await send(
        { method: "POST", path: "/requests", body: { category: "laptop", budget_min: 0, budget_max: -1 } },
        await buyer(),
        "en"
      )
      expectValidation(response, "category", "en")
      expect(Object.keys(response.body.error.details)).toEqual(
        expect.arrayContaining(["category", "budget_min", "budget_max", "location_district"])
      )
    })

    it("without Accept-Language the user's language is used, then Arabic", async () => {
      const english = await m.buyer("English Speaker")
      await m.api.put("/users/me", { token: english.token, body: { language: "en" } })
      const bad = { method: "POST", path: "/requests", body: { ...requestBody(), category: "laptop" } } as const
      expectValidation(await send(bad, english), "category", "en")
      expectValidation(await send(bad, await buyer()), "category", "ar")
      expectValidation(await send(bad, english, "ar"), "category", "ar")
    })

    interface Accepted {
      readonly name: string
      readonly body: RequestBody<"/requests", "post">
      readonly stored: Record<string, unknown>
    }
    /** What the server adds to a decoded body (defaults), and what the database must hold (its own length checks). */
    const acceptedRequests: ReadonlyArray<Accepted> = [
      {
        // The contract decodes an absent condition_pref as `any`; this shows it is what is stored.
        name: "only the required fields: condition_pref defaults to any",
        body: { category: "accessory", budget_min: 10, budget_max: 10, location_district: "Malaz" },
        stored: {
          category: "accessory",
          budget_min: 10,
          budget_max: 10,
          location_district: "Malaz",
          condition_pref: "any"
        }
      },
      {
        // The columns' CHECKs count char_length (code points): 100 emoji are 100 characters, 200 UTF-16 units.
        name: "its bounds: 100-emoji brand and model, 2000-char notes, budgets 0.01 and 1,000,000,000",
        body: requestBody({
          product_brand: "📱".repeat(100),
          product_model: "📱".repeat(100),
          notes: long(2000),
          budget_min: 0.01,
          budget_max: 1_000_000_000
        }),
        stored: {
          product_brand: "📱".repeat(100),
          product_model: "📱".repeat(100),
          notes: long(2000),
          budget_min: 0.01,
          budget_max: 1_000_000_000
        }
      }
    ]
    it.each(acceptedRequests.map((c) => [c.name, c] as const))("POST /requests stores %s", async (_, c) => {
      const response = await m.api.post("/requests", { token: (await buyer()).token, body: c.body })
      expect(response.status, JSON.stringify(response.body)).toBe(201)
      expect(response.body.data).toMatchObject(c.stored)
      expect(await m.requestDetail(await buyer(), response.body.data.id)).toMatchObject(c.stored)
    })

    it("POST /offers, /seller-profiles and /deals/{id}/cancel accept their bounds", async () => {
      const request = await m.createRequest(await buyer())
      const offer = await m.offer(await seller(), request.id, {
        price: 0.01,
        availability: long(200),
        condition_notes: long(2000),
        warranty_notes: long(2000)
      })
      expect(offer).toMatchObject({ price: 0.01, availability: long(200) })
      const minimal = await m.api.post("/offers", {
        token: (await m.approvedSeller("Minimal Offer")).token,
        body: { request_id: request.id, price: 1_000_000_000, availability: "now" }
      })
      expect(minimal.status, JSON.stringify(minimal.body)).toBe(201)

      const shortName = await m.buyer("Short Name")
      expect((await m.apply(shortName, { business_name: "AB", bio: long(2000) })).business_name).toBe("AB")
      const minimalProfile = await m.api.post("/seller-profiles", {
        token: (await m.buyer("Minimal Profile")).token,
        body: { business_name: long(120), location_district: "Malaz" }
      })
      expect(minimalProfile.status, JSON.stringify(minimalProfile.body)).toBe(201)

      const { deal } = await m.deal(await buyer(), await seller())
      const cancelled = await m.api.put(`/deals/${deal.id}/cancel`, {
        token: (await buyer()).token,
        body: { reason: long(200), description: long(2000) }
      })
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    })
    it("a malformed id in the path is refused as bad input or not found, never a server error", async () => {
      const caller = await buyer()
      for (const [method, path] of [
        ["GET", "/requests/not-a-uuid"],
        ["PUT", "/requests/123/close"],
        ["GET", "/requests/not-a-uuid/offers"],
        ["POST", "/offers/not-a-uuid/accept"],
        ["DELETE", "/offers/not-a-uuid"],
        ["GET", "/deals/not-a-uuid"],
        ["PUT", "/deals/not-a-uuid/complete"],
        ["GET", "/seller-profiles/not-a-uuid"]
      ] as const) {
        const response = await m.api.raw.call(method, path, { token: caller.token })
        expect([400, 404], `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status)
        expect(response.body.success).toBe(false)
        expect(["VALIDATION_ERROR", "NOT_FOUND"]).toContain(response.body.error.code)
      }
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("business rules (422) change nothing", () => {
    it("REQUEST_NOT_ACTIVE: an offer on a closed request", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const request = await m.createRequest(buyer)
      await m.close(buyer, request.id)
      await unchanged(
        async () => [await m.requestDetail(buyer, request.id), await m.myOffers(seller)],
        async () =>
          expectError(
            await m.api.post("/offers", { token: seller.token, body: offerBody(request.id) }),
            422,
            "REQUEST_NOT_ACTIVE"
          )
      )
    })

    it("REQUEST_NOT_ACTIVE: an offer on a request closed by an acceptance", async () => {
      const buyer = await m.buyer()
      const { request } = await m.deal(buyer, await m.approvedSeller())
      const late = await m.approvedSeller("Late Seller")
      await unchanged(
        async () => [await m.requestDetail(buyer, request.id), await m.offersOf(buyer, request.id)],
        async () =>
          expectError(
            await m.api.post("/offers", { token: late.token, body: offerBody(request.id) }),
            422,
            "REQUEST_NOT_ACTIVE"
          )
      )
    })

    it("REQUEST_ALREADY_CLOSED: closing twice, or closing after an acceptance", async () => {
      const buyer = await m.buyer()
      const request = await m.createRequest(buyer)
      await m.close(buyer, request.id)
      await unchanged(
        () => m.requestDetail(buyer, request.id),
        async () =>
          expectError(
            await m.api.put(`/requests/${request.id}/close`, { token: buyer.token }),
            422,
            "REQUEST_ALREADY_CLOSED"
          )
      )
      const accepted = await m.deal(buyer, await m.approvedSeller())
      await unchanged(
        async () => [await m.requestDetail(buyer, accepted.request.id), await m.offersOf(buyer, accepted.request.id)],
        async () =>
          expectError(
            await m.api.put(`/requests/${accepted.request.id}/close`, { token: buyer.token }),
            422,
            "REQUEST_ALREADY_CLOSED"
          )
      )
    })

    it("DUPLICATE_PENDING_OFFER: a second pending offer of one seller on one request", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { request } = await m.pendingOffer(buyer, seller)
      await unchanged(
        async () => [(await m.requestDetail(buyer, request.id)).offer_count, await m.offersOf(buyer, request.id)],
        async () =>
          expectError(
            await m.api.post("/offers", { token: seller.token, body: offerBody(request.id, { price: 3500 }) }),
            422,
            "DUPLICATE_PENDING_OFFER"
          )
      )
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(1)
    })

    it("OFFER_ALREADY_ACCEPTED: withdrawing an accepted offer; accepting it again is a 422 too", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { request, offer, deal } = await m.deal(buyer, seller)
      const state = async () => [
        await m.offersOf(buyer, request.id),
        await m.requestDetail(buyer, request.id),
        await m.dealDetail(buyer, deal.id)
      ]
      await unchanged(state, async () =>
        expectError(await m.api.delete(`/offers/${offer.id}`, { token: seller.token }), 422, "OFFER_ALREADY_ACCEPTED")
      )
      await unchanged(state, async () => {
        const again = await m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token })
        expect(again.status, JSON.stringify(again.body)).toBe(422)
        // The spec names both "offer already accepted" and "request not active" for this call.
        expect(["OFFER_ALREADY_ACCEPTED", "REQUEST_NOT_ACTIVE"]).toContain(again.body.error.code)
      })
    })

    it("OFFER_NOT_PENDING: withdrawing a withdrawn or a rejected offer, accepting a withdrawn one", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { request, offer } = await m.pendingOffer(buyer, seller)
      await m.withdraw(seller, offer.id)
      const state = async () => [await m.offersOf(seller, request.id), await m.requestDetail(buyer, request.id)]
      await unchanged(state, async () =>
        expectError(await m.api.delete(`/offers/${offer.id}`, { token: seller.token }), 422, "OFFER_NOT_PENDING")
      )
      // The request is still active, so only the offer's state is wrong.
      await unchanged(state, async () =>
        expectError(await m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")
      )
      expect((await m.requestDetail(buyer, request.id)).status).toBe("active")

      const closed = await m.pendingOffer(buyer, seller)
      await m.close(buyer, closed.request.id)
      await unchanged(
        async () => [await m.offersOf(seller, closed.request.id), await m.requestDetail(buyer, closed.request.id)],
        async () =>
          expectError(
            await m.api.delete(`/offers/${closed.offer.id}`, { token: seller.token }),
            422,
            "OFFER_NOT_PENDING"
          )
      )
    })

    it("accepting a rejected offer (another was accepted) is a 422 and changes nothing", async () => {
      const buyer = await m.buyer()
      const winner = await m.approvedSeller("Winner")
      const loser = await m.approvedSeller("Loser")
      const request = await m.createRequest(buyer)
      const won = await m.offer(winner, request.id)
      const lost = await m.offer(loser, request.id)
      await m.accept(buyer, won.id)
      await unchanged(
        async () => [await m.offersOf(buyer, request.id), await m.requestDetail(buyer, request.id)],
        async () => {
          const response = await m.api.post(`/offers/${lost.id}/accept`, { token: buyer.token })
          expect(response.status, JSON.stringify(response.body)).toBe(422)
          expect(["OFFER_NOT_PENDING", "REQUEST_NOT_ACTIVE"]).toContain(response.body.error.code)
        }
      )
    })

    it("CANNOT_OFFER_ON_OWN_REQUEST: an approved seller offering on their own request", async () => {
      const seller = await m.approvedSeller()
      const request = await m.createRequest(seller)
      await unchanged(
        async () => [await m.requestDetail(seller, request.id), await m.myOffers(seller)],
        async () =>
          expectError(
            await m.api.post("/offers", { token: seller.token, body: offerBody(request.id) }),
            422,
            "CANNOT_OFFER_ON_OWN_REQUEST"
          )
      )
    })

    it("DEAL_NOT_ACTIVE: completing or cancelling a deal that is completed or cancelled", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const completed = await m.completedDeal(buyer, seller)
      const cancelled = await m.deal(buyer, seller)
      await m.cancel(buyer, cancelled.deal.id)
      for (const { deal } of [completed, cancelled]) {
        const state = () => m.dealDetail(buyer, deal.id)
        await unchanged(state, async () =>
          expectError(await m.api.put(`/deals/${deal.id}/complete`, { token: buyer.token }), 422, "DEAL_NOT_ACTIVE")
        )
        await unchanged(state, async () =>
          expectError(
            await m.api.put(`/deals/${deal.id}/cancel`, { token: buyer.token, body: { reason: "Again" } }),
            422,
            "DEAL_NOT_ACTIVE"
          )
        )
      }
    })

    it("REPORT_NOT_PENDING: resolving a report that was dismissed or resolved", async () => {
      const reporter = await m.buyer()
      const seller = await m.approvedSeller()
      const dismissed = await m.report(reporter, seller.userId)
      await m.resolve(dismissed.id, "dismiss")
      const warned = await m.report(reporter, seller.userId)
      await m.resolve(warned.id, "warn")
      const admin = await m.adminUser()
      for (const report of [dismissed, warned]) {
        await unchanged(
          async () => [await m.adminReport(report.id), (await m.me(seller)).seller_profile],
          async () =>
            expectError(
              await m.api.put(`/admin/reports/${report.id}/resolve`, {
                token: admin.token,
                body: { action: "suspend_seller" }
              }),
              422,
              "REPORT_NOT_PENDING"
            )
        )
      }
      expect((await m.me(seller)).seller_profile?.status).toBe("approved")
    })

    it("SELLER_PROFILE_EXISTS: applying again with a pending, approved, rejected or suspended profile", async () => {
      const pending = await m.pendingSeller()
      const approved = await m.approvedSeller()
      const rejected = await m.pendingSeller("Rejected")
      const admin = await m.adminUser()
      await m.api.put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token: admin.token })
      const suspended = await m.suspendedSeller()
      for (const user of [pending, approved, rejected, suspended]) {
        await unchanged(
          async () => (await m.me(user)).seller_profile,
          async () =>
            expectError(
              await m.api.post("/seller-profiles", {
                token: user.token,
                body: profileBody({ business_name: "Second Shop" })
              }),
              422,
              "SELLER_PROFILE_EXISTS"
            )
        )
      }
    })

    it("SELLER_PROFILE_NOT_PENDING: approving or rejecting a profile that is not pending", async () => {
      const admin = await m.adminUser()
      const approved = await m.approvedSeller()
      const rejected = await m.pendingSeller("Rejected")
      await m.api.put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token: admin.token })
      const suspended = await m.suspendedSeller()
      for (const seller of [approved, rejected, suspended]) {
        for (const decision of ["approve", "reject"] as const) {
          await unchanged(
            async () => (await m.me(seller)).seller_profile,
            async () =>
              expectError(
                await m.api.put(`/admin/seller-profiles/${seller.profileId}/${decision}`, { token: admin.token }),
                422,
                "SELLER_PROFILE_NOT_PENDING"
              )
          )
        }
      }
    })

    it("CANNOT_REPORT_SELF: reporting oneself, with or without a deal", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { deal } = await m.deal(buyer, seller)
      const count = async () =>
        (await m.api.get("/admin/reports?per_page=1", { token: (await m.adminUser()).token })).body.data.pagination
          .total
      for (const body of [
        { reported_user_id: buyer.userId, reason: "other" },
        { reported_user_id: buyer.userId, reason: "other", deal_id: deal.id }
      ]) {
        await unchanged(count, async () =>
          expectError(await m.api.raw.post("/reports", { token: buyer.token, body }), 422, "CANNOT_REPORT_SELF")
        )
      }
    })

    it("rating a deal that is not completed, or twice: 400 VALIDATION_ERROR naming deal_id", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const accepted = await m.deal(buyer, seller)
      const cancelled = await m.deal(buyer, seller)
      await m.cancel(buyer, cancelled.deal.id)
      const completed = await m.completedDeal(buyer, seller)
      await m.rate(buyer, completed.deal.id, 4)
      const rating = async () => {
        const profile = (await m.me(seller)).seller_profile
        return [profile?.rating_avg, profile?.rating_count]
      }
      for (const language of languages) {
        for (const deal of [accepted.deal, cancelled.deal, completed.deal]) {
          await unchanged(rating, async () =>
            expectValidation(
              await m.api.post("/ratings", { ...asCaller(buyer, language), body: { deal_id: deal.id, rating: 1 } }),
              "deal_id",
              language
            )
          )
        }
      }
      expect(await rating()).toEqual([4, 1])
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("error precedence (decisions.md section 11): 401 > 400 > 404 > 403 > 422", () => {
    it("401 outranks 400: no token or a bad token with an invalid body", async () => {
      expectError(await m.api.raw.post("/requests", { body: { category: "laptop" } }), 401, "UNAUTHORIZED")
      expectError(await m.api.raw.post("/offers", { token: "not-a-jwt", body: { price: -1 } }), 401, "UNAUTHORIZED")
      expectError(
        await m.api.raw.post("/requests", { rawBody: "{not json", headers: { "content-type": "application/json" } }),
        401,
        "UNAUTHORIZED"
      )
      expectError(
        await m.api.raw.put(`/admin/reports/${unknownId()}/resolve`, { body: { action: "ban" } }),
        401,
        "UNAUTHORIZED"
      )
    })

    it("400 outranks 404: invalid bodies naming unknown resources", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const admin = await m.adminUser()
      expectError(
        await m.api.post("/offers", { token: seller.token, body: offerBody(unknownId(), { price: -1 }) }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.raw.put(`/deals/${unknownId()}/cancel`, { token: buyer.token, body: {} }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.post("/ratings", { token: buyer.token, body: { deal_id: unknownId(), rating: 9 } }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.raw.put(`/admin/reports/${unknownId()}/resolve`, { token: admin.token, body: { action: "ban" } }),
        400,
        "VALIDATION_ERROR"
      )
    })

    it("400 outranks 403: callers who may not act, sending invalid bodies", async () => {
      const buyer = await m.buyer()
      const stranger = await m.buyer("Stranger")
      const pending = await m.pendingSeller()
      const { deal } = await m.deal(buyer, await m.approvedSeller())
      const request = await m.createRequest(buyer)
      const report = await m.report(buyer, pending.userId)
      expectError(
        await m.api.post("/offers", { token: pending.token, body: offerBody(request.id, { price: 0 }) }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.post("/offers", { token: stranger.token, body: offerBody(request.id, { availability: "" }) }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.put(`/deals/${deal.id}/cancel`, { token: stranger.token, body: { reason: "" } }),
        400,
        "VALIDATION_ERROR"
      )
      // Except on /admin/*, where a non-admin learns nothing, not even that the body is wrong (decisions.md §11).
      expectError(
        await m.api.raw.put(`/admin/reports/${report.id}/resolve`, { token: stranger.token, body: { action: "ban" } }),
        403,
        "FORBIDDEN"
      )
      expect((await m.dealDetail(buyer, deal.id)).status).toBe("accepted")
    })

    it("400 outranks 422: invalid bodies that would also break a business rule", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { request } = await m.pendingOffer(buyer, seller)
      expectError(
        await m.api.post("/offers", { token: seller.token, body: offerBody(request.id, { price: 1.001 }) }),
        400,
        "VALIDATION_ERROR"
      )
      const closed = await m.createRequest(buyer)
      await m.close(buyer, closed.id)
      expectError(
        await m.api.post("/offers", { token: seller.token, body: offerBody(closed.id, { availability: long(201) }) }),
        400,
        "VALIDATION_ERROR"
      )
      const own = await m.createRequest(seller)
      expectError(
        await m.api.raw.post("/offers", { token: seller.token, body: without(offerBody(own.id), "price") }),
        400,
        "VALIDATION_ERROR"
      )
      expectError(
        await m.api.raw.post("/reports", {
          token: buyer.token,
          body: { reported_user_id: buyer.userId, reason: "bad" }
        }),
        400,
        "VALIDATION_ERROR"
      )
    })

    it("404 outranks 403: callers who may not act, naming unknown ids", async () => {
      const stranger = await m.buyer("Stranger")
      const pending = await m.pendingSeller()
      expectError(await m.api.post("/offers", { token: pending.token, body: offerBody(unknownId()) }), 404, "NOT_FOUND")
      expectError(
        await m.api.post("/offers", { token: stranger.token, body: offerBody(unknownId()) }),
        404,
        "NOT_FOUND"
      )
      expectError(await m.api.get(`/requests/${unknownId()}/offers`, { token: stranger.token }), 404, "NOT_FOUND")
      expectError(await m.api.put(`/requests/${unknownId()}/close`, { token: stranger.token }), 404, "NOT_FOUND")
      expectError(await m.api.put(`/deals/${unknownId()}/complete`, { token: stranger.token }), 404, "NOT_FOUND")
      expectError(
        await m.api.post("/reports", {
          token: stranger.token,
          body: { reported_user_id: pending.userId, deal_id: unknownId(), reason: "scam" }
        }),
        404,
        "NOT_FOUND"
      )
      // Except on /admin/*, where a non-admin cannot probe which ids exist (decisions.md §11).
      expectError(
        await m.api.put(`/admin/seller-profiles/${unknownId()}/approve`, { token: stranger.token }),
        403,
        "FORBIDDEN"
      )
    })

    it("403 outranks 422: callers who may not act on resources in the wrong state", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const stranger = await m.buyer("Stranger")
      const pending = await m.pendingSeller()
      const suspended = await m.suspendedSeller()

      const closed = await m.createRequest(buyer)
      await m.close(buyer, closed.id)
      expectError(
        await m.api.post("/offers", { token: pending.token, body: offerBody(closed.id) }),
        403,
        "SELLER_NOT_APPROVED"
      )
      expectError(await m.api.put(`/requests/${closed.id}/close`, { token: stranger.token }), 403, "FORBIDDEN")

      const ownOfSuspended = await m.createRequest(suspended)
      expectError(
        await m.api.post("/offers", { token: suspended.token, body: offerBody(ownOfSuspended.id) }),
        403,
        "SELLER_NOT_APPROVED"
      )

      const { offer, deal } = await m.completedDeal(buyer, seller)
      expectError(await m.api.put(`/deals/${deal.id}/complete`, { token: seller.token }), 403, "FORBIDDEN")
      expectError(
        await m.api.put(`/deals/${deal.id}/cancel`, { token: stranger.token, body: { reason: "x" } }),
        403,
        "FORBIDDEN"
      )
      expectError(await m.api.delete(`/offers/${offer.id}`, { token: stranger.token }), 403, "FORBIDDEN")
      expectError(await m.api.post(`/offers/${offer.id}/accept`, { token: stranger.token }), 403, "FORBIDDEN")

      const rejected = await m.pendingOffer(buyer, seller)
      await m.close(buyer, rejected.request.id)
      expectError(await m.api.post(`/offers/${rejected.offer.id}/accept`, { token: seller.token }), 403, "FORBIDDEN")

      const report = await m.report(buyer, seller.userId)
      await m.resolve(report.id, "dismiss")
      expectError(
        await m.api.put(`/admin/reports/${report.id}/resolve`, { token: stranger.token, body: { action: "warn" } }),
        403,
        "FORBIDDEN"
      )
      expectError(
        await m.api.put(`/admin/seller-profiles/${seller.profileId}/approve`, { token: stranger.token }),
        403,
        "FORBIDDEN"
      )
      expect((await m.adminReport(report.id)).status).toBe("dismissed")
      expect((await m.me(seller)).seller_profile?.status).toBe("approved")
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("mass assignment: fields the server owns are never taken from input", () => {
    it("POST /requests ignores id, status, buyer_id, offer_count, closed_at and created_at", async () => {
      const buyer = await m.buyer()
      const other = await m.buyer("Other")
      const forgedId = unknownId()
      const response = await m.api.post("/requests", {
        token: buyer.token,
        body: requestBody({
          id: forgedId,
          status: "closed",
          buyer_id: other.userId,
          offer_count: 99,
          closed_at: "2020-01-01T00:00:00Z",
          created_at: "2000-01-01T00:00:00Z"
        })
      })
      expect(response.status, JSON.stringify(response.body)).toBe(201)
      const data = response.body.data
      expect(data).toMatchObject({ status: "active", buyer_id: buyer.userId, offer_count: 0, closed_at: null })
      expect(data.id).not.toBe(forgedId)
      expect(data.created_at.startsWith("2000")).toBe(false)
      const detail = await m.requestDetail(other, data.id)
      expect(detail).toMatchObject({ status: "active", offer_count: 0, buyer: { id: buyer.userId } })
      const othersOwn = await m.api.get("/requests/my", { token: other.token })
      expect(othersOwn.body.data.requests).toEqual([])
    })

    it("POST /offers ignores status and seller_id", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const other = await m.approvedSeller("Other Seller")
      const request = await m.createRequest(buyer)
      const offer = await m.offer(seller, request.id, { status: "accepted", seller_id: other.userId, id: unknownId() })
      expect(offer).toMatchObject({ status: "pending", seller_id: seller.userId, request_id: request.id })
      expect(await m.myOffers(other)).toEqual([])
      expect(await m.requestDetail(buyer, request.id)).toMatchObject({ status: "active", offer_count: 1 })
    })

    it("POST /seller-profiles ignores status, user_id, rating_avg, rating_count and approved_at", async () => {
      const applicant = await m.buyer()
      const other = await m.buyer("Other")
      const profile = await m.apply(applicant, {
        status: "approved",
        user_id: other.userId,
        rating_avg: 5,
        rating_count: 100,
        approved_at: "2020-01-01T00:00:00Z"
      })
      expect(profile).toMatchObject({ status: "pending", user_id: applicant.userId })
      expect((await m.me(other)).seller_profile).toBeNull()
      expect((await m.me(applicant)).seller_profile).toMatchObject({
        status: "pending",
        rating_avg: 0,
        rating_count: 0
      })
      expectError(await m.api.get(`/seller-profiles/${profile.id}`), 404, "NOT_FOUND")
      await m.approve(profile.id)
      expect((await m.api.get(`/seller-profiles/${profile.id}`)).body.data).toMatchObject({
        rating_avg: 0,
        rating_count: 0
      })
    })

    it("POST /ratings ignores seller_id; POST /reports ignores status; cancel and resolve ignore status", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const other = await m.approvedSeller("Other Seller")
      const { deal } = await m.completedDeal(buyer, seller)
      const rating = await m.api.raw.post("/ratings", {
        token: buyer.token,
        body: { deal_id: deal.id, rating: 2, seller_id: other.userId, buyer_id: other.userId }
      })
      expect(rating.status, JSON.stringify(rating.body)).toBe(201)
      expect(rating.body.data.seller_id).toBe(seller.userId)
      expect((await m.me(other)).seller_profile).toMatchObject({ rating_avg: 0, rating_count: 0 })
      expect((await m.me(seller)).seller_profile).toMatchObject({ rating_avg: 2, rating_count: 1 })

      const report = await m.report(buyer, seller.userId, {
        status: "resolved",
        action: "suspend_seller",
        resolved_at: "2020-01-01T00:00:00Z"
      })
      expect(report.status).toBe("pending")
      expect((await m.adminReport(report.id)).status).toBe("pending")
      expect((await m.me(seller)).seller_profile?.status).toBe("approved")

      const resolved = await m.api.raw.put(`/admin/reports/${report.id}/resolve`, {
        token: (await m.adminUser()).token,
        body: { action: "warn", status: "dismissed" }
      })
      expect(resolved.body.data).toMatchObject({ status: "resolved", action: "warn" })

      const open = await m.deal(buyer, seller)
      const cancelled = await m.api.raw.put(`/deals/${open.deal.id}/cancel`, {
        token: buyer.token,
        body: { reason: "Nope", status: "completed" }
      })
      expect(cancelled.body.data.status).toBe("cancelled")
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("transitions and their effects", () => {
    it.each(languages)("a price outside the budget is accepted with a warning message in %s", async (language) => {
      const buyer = await m.buyer()
      const request = await m.createRequest(buyer, { budget_min: 1000, budget_max: 2000 })
      const inside = await m.api.post("/offers", {
        ...asCaller(await m.approvedSeller(), language),
        body: offerBody(request.id, { price: 1500 })
      })
      expect(inside.status, JSON.stringify(inside.body)).toBe(201)
      for (const price of [2000.01, 999.99]) {
        const seller = await m.approvedSeller()
        const outside = await m.api.post("/offers", {
          ...asCaller(seller, language),
          body: offerBody(request.id, { price })
        })
        expect(outside.status, JSON.stringify(outside.body)).toBe(201)
        expect(outside.body.data).toMatchObject({ price, status: "pending" })
        expectInLanguage(outside.body.message, language)
        expect(outside.body.message).not.toBe(inside.body.message)
      }
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(3)
    })

    it.each(languages)("the withdraw confirmation is in %s", async (language) => {
      const seller = await m.approvedSeller()
      const { offer } = await m.pendingOffer(await m.buyer(), seller)
      const response = await m.api.delete(`/offers/${offer.id}`, asCaller(seller, language))
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect(response.body.success).toBe(true)
      expectInLanguage(response.body.message, language)
    })

    it("withdrawing a pending offer lowers offer_count and lets the seller offer again", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const other = await m.approvedSeller("Other Seller")
      const { request, offer } = await m.pendingOffer(buyer, seller)
      await m.offer(other, request.id)
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(2)

      const withdrawn = await m.api.delete(`/offers/${offer.id}`, { token: seller.token })
      expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(200)
      expect(withdrawn.body.success).toBe(true)
      expect(typeof withdrawn.body.message).toBe("string")
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(1)
      const listed = await m.api.get(
        `/requests?location_city=${encodeURIComponent(request.location_city!)}&per_page=50`,
        { token: buyer.token }
      )
      expect(listed.body.data.requests.find((r) => r.id === request.id)!.offer_count).toBe(1)
      expect((await m.myOffers(seller)).find((o) => o.id === offer.id)?.status).toBe("withdrawn")

      const again = await m.offer(seller, request.id, { price: 3900 })
      expect(again.status).toBe("pending")
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(2)
    })

    it("closing a request rejects its pending offers and leaves withdrawn ones withdrawn", async () => {
      const buyer = await m.buyer()
      const first = await m.approvedSeller("First")
      const second = await m.approvedSeller("Second")
      const third = await m.approvedSeller("Third")
      const request = await m.createRequest(buyer)
      const a = await m.offer(first, request.id)
      const b = await m.offer(second, request.id)
      const c = await m.offer(third, request.id)
      await m.withdraw(third, c.id)

      const closed = await m.close(buyer, request.id)
      expect(closed).toMatchObject({ id: request.id, status: "closed" })
      expect(typeof closed.closed_at).toBe("string")
      expect((await m.requestDetail(buyer, request.id)).closed_at).toBe(closed.closed_at)

      const statusOf = async (seller: Seller, offerId: string) =>
        (await m.myOffers(seller)).find((o) => o.id === offerId)?.status
      expect(await statusOf(first, a.id)).toBe("rejected")
      expect(await statusOf(second, b.id)).toBe("rejected")
      expect(await statusOf(third, c.id)).toBe("withdrawn")
      expect((await m.offersOf(buyer, request.id)).map((o) => o.status)).toEqual(["rejected", "rejected"])

      const active = await m.api.get(
        `/requests?location_city=${encodeURIComponent(request.location_city!)}&per_page=50`,
        { token: buyer.token }
      )
      expect(active.body.data.requests.map((r) => r.id)).not.toContain(request.id)
      const closedList = await m.api.get("/requests?status=closed&per_page=50", { token: buyer.token })
      expect(closedList.body.data.requests.map((r) => r.id)).toContain(request.id)
    })

    it("accepting rejects the other pending offers, leaves withdrawn ones, closes the request", async () => {
      const buyer = await m.buyer()
      const sellers = [await m.approvedSeller("A"), await m.approvedSeller("B"), await m.approvedSeller("C")]
      const request = await m.createRequest(buyer)
      const [won, lost, gone] = [
        await m.offer(sellers[0]!, request.id),
        await m.offer(sellers[1]!, request.id),
        await m.offer(sellers[2]!, request.id)
      ]
      await m.withdraw(sellers[2]!, gone!.id)
      const deal = await m.accept(buyer, won!.id)
      expect(deal).toMatchObject({
        request_id: request.id,
        offer_id: won!.id,
        buyer_id: buyer.userId,
        seller_id: sellers[0]!.userId,
        status: "accepted"
      })
      const statuses = Object.fromEntries((await m.offersOf(buyer, request.id)).map((o) => [o.id, o.status]))
      expect(statuses).toEqual({ [won!.id]: "accepted", [lost!.id]: "rejected" })
      expect((await m.offersOf(sellers[2]!, request.id)).map((o) => o.status)).toEqual(["withdrawn"])
      const detail = await m.requestDetail(buyer, request.id)
      expect(detail.status).toBe("closed")
      expect(typeof detail.closed_at).toBe("string")
    })

    it("a cancelled deal keeps its request closed", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const { request, deal } = await m.deal(buyer, seller)
      const closedAt = (await m.requestDetail(buyer, request.id)).closed_at
      const cancelled = await m.cancel(buyer, deal.id)
      expect(cancelled).toMatchObject({ id: deal.id, status: "cancelled" })
      expect(typeof cancelled.cancelled_at).toBe("string")
      expect(await m.requestDetail(buyer, request.id)).toMatchObject({ status: "closed", closed_at: closedAt })
      expect(await m.dealDetail(seller, deal.id)).toMatchObject({
        status: "cancelled",
        cancelled_at: cancelled.cancelled_at,
        completed_at: null
      })
      const late = await m.approvedSeller("Late")
      expectError(
        await m.api.post("/offers", { token: late.token, body: offerBody(request.id) }),
        422,
        "REQUEST_NOT_ACTIVE"
      )
      expectError(
        await m.api.put(`/requests/${request.id}/close`, { token: buyer.token }),
        422,
        "REQUEST_ALREADY_CLOSED"
      )
    })

    it("ratings update rating_avg (2 decimals) and rating_count everywhere the seller shows", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const expected: Array<[number, number, number]> = [
        [5, 5, 1],
        [4, 4.5, 2],
        [5, 4.67, 3],
        [1, 3.75, 4]
      ]
      for (const [stars, avg, count] of expected) {
        const { deal } = await m.completedDeal(buyer, seller)
        const rating = await m.rate(buyer, deal.id, stars)
        expect(rating).toMatchObject({ deal_id: deal.id, seller_id: seller.userId, rating: stars })
        expect((await m.me(seller)).seller_profile).toMatchObject({ rating_avg: avg, rating_count: count })
        expect((await m.api.get(`/seller-profiles/${seller.profileId}`)).body.data).toMatchObject({
          rating_avg: avg,
          rating_count: count
        })
      }
      const { request } = await m.pendingOffer(buyer, seller)
      expect((await m.offersOf(buyer, request.id))[0].seller).toMatchObject({ rating_avg: 3.75, rating_count: 4 })
      const deals = await m.api.get("/deals/my?role=buyer&per_page=1", { token: buyer.token })
      expect(deals.body.data.deals[0].seller.rating_avg).toBe(3.75)
    })

    it("resolve: dismiss → dismissed, warn → resolved, suspend_seller → resolved and the seller suspended", async () => {
      const reporter = await m.buyer()
      const seller = await m.approvedSeller()
      const buyer = await m.buyer("Buyer")

      const dismissed = await m.resolve((await m.report(reporter, seller.userId)).id, "dismiss", "Not enough evidence")
      expect(dismissed).toMatchObject({ status: "dismissed", action: "dismiss", notes: "Not enough evidence" })
      expect(typeof dismissed.resolved_at).toBe("string")

      const warned = await m.resolve((await m.report(reporter, seller.userId)).id, "warn")
      expect(warned).toMatchObject({ status: "resolved", action: "warn" })
      expect((await m.me(seller)).seller_profile?.status).toBe("approved")
      await m.pendingOffer(buyer, seller)

      const report = await m.report(reporter, seller.userId)
      const suspended = await m.resolve(report.id, "suspend_seller", "Scam confirmed")
      expect(suspended).toMatchObject({
        id: report.id,
        status: "resolved",
        action: "suspend_seller",
        notes: "Scam confirmed"
      })
      expect((await m.me(seller)).seller_profile?.status).toBe("suspended")
      expectError(await m.api.get(`/seller-profiles/${seller.profileId}`), 404, "NOT_FOUND")
      const request = await m.createRequest(buyer)
      await unchanged(
        () => m.requestDetail(buyer, request.id),
        async () =>
          expectError(
            await m.api.post("/offers", { token: seller.token, body: offerBody(request.id) }),
            403,
            "SELLER_NOT_APPROVED"
          )
      )

      const byStatus = async (status: string) => (await m.adminReports(`&status=${status}`)).map((r) => r.id)
      expect(await byStatus("dismissed")).toContain(dismissed.id)
      expect(await byStatus("dismissed")).not.toContain(report.id)
      expect(await byStatus("resolved")).toEqual(expect.arrayContaining([warned.id, report.id]))
      expect(await byStatus("pending")).not.toContain(report.id)
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("envelope, language and edge rules (decisions.md sections 6, 8, 11)", () => {
    it.each(languages)("error messages of 401, 403, 404 and 422 are in %s", async (language) => {
      const buyer = await m.buyer()
      const stranger = await m.buyer("Stranger")
      const pending = await m.pendingSeller()
      const request = await m.createRequest(buyer)
      await m.close(buyer, request.id)
      const cases: Array<[number, string, string, () => Promise<Response>]> = [
        [401, "UNAUTHORIZED", "GET /requests", () => m.api.get("/requests", asCaller(undefined, language))],
        [
          403,
          "FORBIDDEN",
          "GET /requests/{id}/offers",
          () => m.api.get(`/requests/${request.id}/offers`, asCaller(stranger, language))
        ],
        [
          403,
          "SELLER_NOT_APPROVED",
          "POST /offers",
          () => m.api.post("/offers", { ...asCaller(pending, language), body: offerBody(request.id) })
        ],
        [
          404,
          "NOT_FOUND",
          "GET /requests/{id}",
          () => m.api.get(`/requests/${unknownId()}`, asCaller(buyer, language))
        ],
        [
          404,
          "NOT_FOUND",
          "GET /requests/all/of/them",
          () => send({ method: "GET", path: "/requests/all/of/them" }, buyer, language)
        ],
        [
          422,
          "REQUEST_ALREADY_CLOSED",
          "PUT /requests/{id}/close",
          () => m.api.put(`/requests/${request.id}/close`, asCaller(buyer, language))
        ]
      ]
      for (const [status, code, what, call] of cases) {
        const response = await call()
        expectError(response, status, code)
        expectInLanguage(response.body.error.message, language)
        expect(typeof response.body.error.details, what).toBe("object")
      }
    })

    it("a JSON body over 1 MiB is 413 PAYLOAD_TOO_LARGE and writes nothing", async () => {
      const buyer = await m.buyer()
      const count = async () => (await m.api.get("/requests/my", { token: buyer.token })).body.data.pagination.total
      await unchanged(count, async () =>
        expectError(
          await m.api.post("/requests", { token: buyer.token, body: requestBody({ notes: long(1024 * 1024 + 10) }) }),
          413,
          "PAYLOAD_TOO_LARGE"
        )
      )
    })

    it("a JSON body that is a string or a number is 400, and so are non-integer or negative pages", async () => {
      const buyer = await m.buyer()
      for (const rawBody of ['"a request"', "42", "true"]) {
        const response = await send(
          { method: "POST", path: "/requests", rawBody, headers: { "content-type": "application/json" } },
          buyer,
          "en"
        )
        expectValidation(response, undefined, "en")
      }
      for (const [query, field] of [
        ["page=-1", "page"],
        ["page=1.5", "page"],
        ["page=abc", "page"],
        ["per_page=2.5", "per_page"],
        ["per_page=-20", "per_page"]
      ] as const) {
        expectValidation(await m.api.get(`/requests?${query}`, asCaller(buyer, "en")), field, "en")
      }
    })

    it("marketplace responses carry the RateLimit-* headers, errors included", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const request = await m.createRequest(buyer)
      const responses = [
        await m.api.get("/requests", { token: buyer.token }),
        await m.api.post("/offers", { token: seller.token, body: offerBody(request.id) }),
        await m.api.post("/offers", { token: seller.token, body: offerBody(request.id) }),
        await m.api.get(`/requests/${request.id}/offers`, { token: (await m.buyer("Stranger")).token }),
        await m.api.raw.post("/requests", { token: buyer.token, body: {} })
      ]
      expect(responses.map((r) => r.status)).toEqual([200, 201, 422, 403, 400])
      for (const response of responses) {
        for (const header of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
          expect(response.headers.get(header), `${header} on a ${response.status}`).toMatch(/^\d+$/)
        }
      }
    })
  })

  // ---------------------------------------------------------------------------------------------------
  describe("lists (decisions.md section 5)", () => {
    it("lists are newest first, and ties on created_at are broken by id, descending", async () => {
      const buyer = await m.buyer()
      const city = `Order-${unknownId().slice(0, 8)}`
      for (let i = 0; i < 3; i++) {
        await m.createRequest(buyer, { location_city: city })
        server().clock.advance("1 second")
      }
      // Created together, so several may share a timestamp.
      await Promise.all(Array.from({ length: 6 }, () => m.createRequest(buyer, { location_city: city })))

      const url = databaseUrl()
      if (url !== undefined) {
        // On PostgreSQL, force a real tie on three of them.
        const mine = (await m.api.get(`/requests/my?per_page=50`, { token: buyer.token })).body.data.requests.slice(
          0,
          3
        )
        const ids = mine.map((r) => r.id)
        await runSql(
          url,
          (sql) => sql`UPDATE buy_requests SET created_at = '2030-01-01T00:00:00Z' WHERE id IN ${sql.in(ids)}`
        )
      }

      const browse = (query: string) => m.api.get(`/requests?location_city=${city}&${query}`, { token: buyer.token })
      const ofBuyer = (query: string) => m.api.get(`/requests/my?${query}`, { token: buyer.token })
      for (const list of [browse, ofBuyer]) {
        const full = (await list("per_page=50")).body.data.requests
        expect(full.length).toBe(9)
        const sorted = [...full].sort((a, b) =>
          a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1
        )
        expect(full.map((r) => r.id)).toEqual(sorted.map((r) => r.id))

        // Paging one by one walks the same order, each item exactly once.
        const walked: Array<string> = []
        for (let page = 1; page <= 9; page++) {
          const one = await list(`per_page=1&page=${page}`)
          walked.push(...one.body.data.requests.map((r) => r.id))
        }
        expect(walked).toEqual(full.map((r) => r.id))
      }
    })

    it("offers/my, deals/my and admin reports are newest first", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const deals: Array<Awaited<ReturnType<Marketplace["deal"]>>> = []
      for (let i = 0; i < 3; i++) {
        deals.push(await m.deal(buyer, seller))
        server().clock.advance("1 second")
      }
      const reports: Array<ReportOf> = []
      // One pending report per reporter, reported user and deal: one about each deal.
      for (const { deal } of deals) {
        reports.push(await m.report(buyer, seller.userId, { deal_id: deal.id }))
        server().clock.advance("1 second")
      }
      const newestFirst = <A extends { id: string }>(items: Array<A>) => [...items].reverse().map((i) => i.id)
      expect((await m.myOffers(seller)).map((o) => o.id)).toEqual(newestFirst(deals.map((d) => d.offer)))
      const dealIds = (await m.api.get("/deals/my", { token: buyer.token })).body.data.deals.map((d) => d.id)
      expect(dealIds).toEqual(newestFirst(deals.map((d) => d.deal)))
      const reportIds = (await m.adminReports()).map((r) => r.id).filter((id) => reports.some((r) => r.id === id))
      expect(reportIds).toEqual(newestFirst(reports))
    })

    it("the pagination object counts and pages exactly", async () => {
      const buyer = await m.buyer()
      const city = `Pages-${unknownId().slice(0, 8)}`
      for (let i = 0; i < 7; i++) await m.createRequest(buyer, { location_city: city })
      const page = async (query: string) => {
        const response = await m.api.get(`/requests?location_city=${city}${query}`, { token: buyer.token })
        expect(response.status, JSON.stringify(response.body)).toBe(200)
        return response.body.data
      }
      expect((await page("")).pagination).toEqual({ current_page: 1, per_page: 20, total: 7, last_page: 1 })
      expect((await page("")).requests.length).toBe(7)
      const cases: Array<[string, number, number]> = [
        ["&per_page=3", 1, 3],
        ["&per_page=3&page=2", 2, 3],
        ["&per_page=3&page=3", 3, 1],
        ["&per_page=3&page=4", 4, 0]
      ]
      for (const [query, current, count] of cases) {
        const data = await page(query)
        expect(data.pagination).toEqual({ current_page: current, per_page: 3, total: 7, last_page: 3 })
        expect(data.requests.length).toBe(count)
      }
      const mine = (await m.api.get("/requests/my?per_page=50", { token: buyer.token })).body.data.pagination
      expect(mine).toEqual({ current_page: 1, per_page: 50, total: 7, last_page: 1 })
      expect((await page("&per_page=7")).pagination.last_page).toBe(1)
      expect((await page("&per_page=6")).pagination.last_page).toBe(2)
    })

    it("filters: category and location_city match exactly, status picks active (default) or closed", async () => {
      const buyer = await m.buyer()
      const city = `Filter-${unknownId().slice(0, 8)}`
      const phone = await m.createRequest(buyer, { category: "phone", location_city: city })
      const accessory = await m.createRequest(buyer, { category: "accessory", location_city: city })
      const closed = await m.createRequest(buyer, { category: "phone", location_city: city })
      await m.close(buyer, closed.id)
      await m.createRequest(buyer, { category: "phone", location_city: `${city}-suburb` })
      const ids = async (query: string) =>
        (await m.api.get(`/requests?${query}&per_page=50`, { token: buyer.token })).body.data.requests.map((r) => r.id)
      expect(await ids(`location_city=${city}`)).toEqual([accessory.id, phone.id])
      expect(await ids(`location_city=${city}&category=phone`)).toEqual([phone.id])
      expect(await ids(`location_city=${city}&category=accessory`)).toEqual([accessory.id])
      expect(await ids(`location_city=${city}&status=closed`)).toEqual([closed.id])
      expect(await ids(`location_city=${city}&status=active`)).toEqual([accessory.id, phone.id])
      expect(await ids(`location_city=${city.slice(0, -2)}`)).toEqual([])

      const mine = async (query: string) =>
        (await m.api.get(`/requests/my?${query}`, { token: buyer.token })).body.data.requests.map((r) => r.id)
      expect((await mine("")).length).toBe(4)
      expect(await mine("status=closed")).toEqual([closed.id])
    })

    it("status filters of /offers/my and /deals/my; without status every state is listed", async () => {
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const accepted = await m.deal(buyer, seller)
      const completed = await m.completedDeal(buyer, seller)
      const withdrawn = await m.pendingOffer(buyer, seller)
      await m.withdraw(seller, withdrawn.offer.id)
      const pending = await m.pendingOffer(buyer, seller)
      const offers = async (query: string) =>
        (await m.api.get(`/offers/my?${query}`, { token: seller.token })).body.data.offers.map((o) => o.id)
      expect((await offers("")).length).toBe(4)
      expect(await offers("status=pending")).toEqual([pending.offer.id])
      expect(await offers("status=withdrawn")).toEqual([withdrawn.offer.id])
      expect(await offers("status=accepted")).toEqual([completed.offer.id, accepted.offer.id])
      const deals = async (query: string) =>
        (await m.api.get(`/deals/my?${query}`, { token: buyer.token })).body.data.deals.map((d) => d.id)
      expect(await deals("status=completed")).toEqual([completed.deal.id])
      expect(await deals("status=accepted&role=buyer")).toEqual([accepted.deal.id])
      expect(await deals("status=accepted&role=seller")).toEqual([])
    })
  })
})
