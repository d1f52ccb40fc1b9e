import { beforeAll, describe, expect, it } from "vitest"
import {
  anOfferBody,
  conversationOfOffer,
  expectError,
  market,
  marketSettings,
  type PostedOffer,
  type PostedRequest
} from "../support/fixtures.js"
import { backends, type Response, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { connectAs } from "../support/ws-client.js"

/*
 * Suspending a seller (decisions.md section 3: a report resolved with `suspend_seller` suspends the reported
 * user's seller profile, which cannot create offers). What is built on it (docs/DECISIONS.md, Marketplace):
 * the suspended seller's pending offers are rejected in the resolve's transaction, so no buyer can accept
 * them; accepted offers, deals and withdrawn offers stay as they are, and offer_count does not move.
 */

type Seller = SignedIn & { readonly profileId: string }

describe.each(backends)("seller suspension (%s)", (backend) => {
  const { server, databaseUrl } = useServerWithDatabase(backend, { settings: marketSettings })
  const m = market(server)

  const fileReport = async (reporter: SignedIn, reported: SignedIn) =>
    m.expectStatus(
      await m
        .api()
        .post("/reports", { token: reporter.token, body: { reported_user_id: reported.userId, reason: "scam" } }),
      201,
      "report"
    ).body.data.id as string

  const resolve = async (reportId: string, action: "dismiss" | "warn" | "suspend_seller") =>
    m.api().put(`/admin/reports/${reportId}/resolve`, { token: (await m.admin()).token, body: { action } })

  const suspend = async (seller: SignedIn) => {
    const reporter = await m.user("Reporter")
    m.expectStatus(await resolve(await fileReport(reporter, seller), "suspend_seller"), 200, "suspend")
  }

  const offersOf = async (owner: SignedIn, requestId: string): Promise<Record<string, string>> =>
    Object.fromEntries(
      m
        .expectStatus(
          await m.api().get(`/requests/${requestId}/offers`, { token: owner.token }),
          200,
          "offers of request"
        )
        .body.data.offers.map((o) => [o.id, o.status])
    )

  const requestOf = async (user: SignedIn, requestId: string) =>
    m.expectStatus(await m.api().get(`/requests/${requestId}`, { token: user.token }), 200, "request").body.data

  const dealCount = async (user: SignedIn) =>
    m.expectStatus(await m.api().get("/deals/my?per_page=1", { token: user.token }), 200, "deals").body.data.pagination
      .total as number

  /** A buyer's request with a pending offer of each given seller. */
  const requestWithOffers = async (buyer: SignedIn, sellers: ReadonlyArray<Seller>) => {
    const request = await m.request(buyer)
    const offers: Array<PostedOffer> = []
    for (const seller of sellers) offers.push(await m.offer(seller, request.id))
    return { request, offers }
  }

  describe("resolving a report with suspend_seller", () => {
    let seller: Seller
    let rival: Seller
    let buyer: SignedIn
    let otherBuyer: SignedIn
    let shared: Awaited<ReturnType<typeof requestWithOffers>>
    let alone: Awaited<ReturnType<typeof requestWithOffers>>
    let withdrawnOffer: PostedOffer
    let withdrawnRequest: PostedRequest
    let made: Awaited<ReturnType<ReturnType<typeof market>["deal"]>>

    beforeAll(async () => {
      made = await m.deal()
      seller = made.seller
      rival = await m.seller("Rival")
      buyer = await m.user("Buyer One")
      otherBuyer = await m.user("Buyer Two")
      shared = await requestWithOffers(buyer, [seller, rival])
      alone = await requestWithOffers(otherBuyer, [seller])
      withdrawnRequest = await m.request(otherBuyer)
      withdrawnOffer = await m.offer(seller, withdrawnRequest.id)
      m.expectStatus(await m.api().delete(`/offers/${withdrawnOffer.id}`, { token: seller.token }), 200, "withdraw")
      await suspend(seller)
    }, 120_000)

    it("rejects the seller's pending offers on every request and leaves other sellers' offers pending", async () => {
      const [mine, theirs] = shared.offers
      expect(await offersOf(buyer, shared.request.id)).toEqual({ [mine.id]: "rejected", [theirs.id]: "pending" })
      expect(await offersOf(otherBuyer, alone.request.id)).toEqual({ [alone.offers[0].id]: "rejected" })
      const own = m.expectStatus(await m.api().get("/offers/my?per_page=50", { token: seller.token }), 200, "my offers")
      expect(Object.fromEntries(own.body.data.offers.map((o) => [o.id, o.status]))).toEqual({
        [made.offer.id]: "accepted",
        [mine.id]: "rejected",
        [alone.offers[0].id]: "rejected",
        [withdrawnOffer.id]: "withdrawn"
      })
    })

    it("keeps each request active with its offer_count (rejected offers still count)", async () => {
      expect(await requestOf(buyer, shared.request.id)).toMatchObject({ status: "active", offer_count: 2 })
      expect(await requestOf(otherBuyer, alone.request.id)).toMatchObject({ status: "active", offer_count: 1 })
      expect(await requestOf(otherBuyer, withdrawnRequest.id)).toMatchObject({ status: "active", offer_count: 0 })
    })

    it("leaves the seller's deals as they are: the buyer can still complete one", async () => {
      const deal = m.expectStatus(await m.api().get(`/deals/${made.deal.id}`, { token: made.buyer.token }), 200, "deal")
      expect(deal.body.data).toMatchObject({ status: "accepted", offer: { status: "accepted" } })
      m.expectStatus(await m.api().put(`/deals/${made.deal.id}/complete`, { token: made.buyer.token }), 200, "complete")
    })

    it("the buyer cannot accept the suspended seller's offer: 422 OFFER_NOT_PENDING, nothing changes", async () => {
      const [mine, theirs] = shared.offers
      const before = await dealCount(buyer)
      expectError(await m.api().post(`/offers/${mine.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")
      expect(await dealCount(buyer)).toBe(before)
      expect(await requestOf(buyer, shared.request.id)).toMatchObject({ status: "active", closed_at: null })
      expect(await offersOf(buyer, shared.request.id)).toEqual({ [mine.id]: "rejected", [theirs.id]: "pending" })
    })

    it("the suspended seller can neither withdraw a rejected offer nor offer again", async () => {
      const offer = alone.offers[0]
      expectError(await m.api().delete(`/offers/${offer.id}`, { token: seller.token }), 422, "OFFER_NOT_PENDING")
      expectError(
        await m.api().post("/offers", { token: seller.token, body: anOfferBody(alone.request.id) }),
        403,
        "SELLER_NOT_APPROVED"
      )
      expect(await offersOf(otherBuyer, alone.request.id)).toEqual({ [offer.id]: "rejected" })
      expect(await requestOf(otherBuyer, alone.request.id)).toMatchObject({ offer_count: 1 })
    })

    it("the buyer can still accept another seller's offer on the same request", async () => {
      const [mine, theirs] = shared.offers
      const deal = await m.accept(buyer, theirs.id)
      expect(deal).toMatchObject({ offer_id: theirs.id, seller_id: rival.userId, status: "accepted" })
      expect(await offersOf(buyer, shared.request.id)).toEqual({ [mine.id]: "rejected", [theirs.id]: "accepted" })
    })

    it("a second suspension of the same seller resolves and finds nothing more to reject", async () => {
      await suspend(seller)
      expect(await offersOf(otherBuyer, alone.request.id)).toEqual({ [alone.offers[0].id]: "rejected" })
      expect((await m.api().get("/users/me", { token: seller.token })).body.data.seller_profile?.status).toBe(
        "suspended"
      )
    })
  })

  it.each(["warn", "dismiss"] as const)("%s leaves the reported seller's pending offers pending", async (action) => {
    const seller = await m.seller()
    const buyer = await m.user()
    const { request, offers } = await requestWithOffers(buyer, [seller])
    m.expectStatus(await resolve(await fileReport(buyer, seller), action), 200, action)
    expect(await offersOf(buyer, request.id)).toEqual({ [offers[0].id]: "pending" })
    await m.accept(buyer, offers[0].id)
  })

  describe("messages of a suspended seller", () => {
    let made: Awaited<ReturnType<ReturnType<typeof market>["deal"]>>
    let otherBuyer: SignedIn
    let pendingConversation: string
    let dealConversation: string

    const texts = async (reader: SignedIn, conversationId: string) =>
      m
        .expectStatus(
          await m.api().get(`/conversations/${conversationId}/messages`, { token: reader.token }),
          200,
          "history"
        )
        .body.data.messages.map((message) => message.message_text)

    beforeAll(async () => {
      made = await m.deal()
      otherBuyer = await m.user("Buyer Three")
      const request = await m.request(otherBuyer)
      const offer = await m.offer(made.seller, request.id)
      pendingConversation = await conversationOfOffer(m.api(), otherBuyer, offer.id)
      dealConversation = await conversationOfOffer(m.api(), made.buyer, made.offer.id)
      const before = await m.api().post(`/conversations/${pendingConversation}/messages`, {
        token: made.seller.token,
        body: { message_text: "before" }
      })
      m.expectStatus(before, 201, "message before the suspension")
      await suspend(made.seller)
    }, 120_000)

    it("refuses their message over REST with 403 SELLER_NOT_APPROVED where the offer is not accepted, storing nothing", async () => {
      const refused = await m.api().post(`/conversations/${pendingConversation}/messages`, {
        token: made.seller.token,
        body: { message_text: "call me on the other app" },
        headers: { "accept-language": "en" }
      })
      expect(expectError(refused, 403, "SELLER_NOT_APPROVED").message).toBe("Your seller profile is not approved")
      expect(await texts(otherBuyer, pendingConversation)).toEqual(["before"])
    })

    it("refuses their message frame over the WebSocket with an error frame SELLER_NOT_APPROVED, storing nothing", async () => {
      const socket = await connectAs(server().wsUrl, made.seller.token, [pendingConversation])
      try {
        socket.send({
          type: "message",
          conversation_id: pendingConversation,
          message_text: "still here",
          client_id: "c-1"
        })
        expect(await socket.nextOfType("error")).toMatchObject({
          type: "error",
          code: "SELLER_NOT_APPROVED",
          client_id: "c-1"
        })
      } finally {
        socket.close()
      }
      expect(await texts(otherBuyer, pendingConversation)).toEqual(["before"])
    })

    it("keeps the conversation of their accepted deal open, over REST and the WebSocket", async () => {
      m.expectStatus(
        await m.api().post(`/conversations/${dealConversation}/messages`, {
          token: made.seller.token,
          body: { message_text: "delivery tomorrow" }
        }),
        201,
        "message in the deal's conversation"
      )
      const socket = await connectAs(server().wsUrl, made.seller.token, [dealConversation])
      try {
        socket.send({ type: "message", conversation_id: dealConversation, message_text: "at ten", client_id: "d-1" })
        expect(await socket.nextOfType("ack")).toMatchObject({ type: "ack", client_id: "d-1" })
      } finally {
        socket.close()
      }
      expect(await texts(made.buyer, dealConversation)).toEqual(["at ten", "delivery tomorrow"]) // newest first
    })

    it("lets the buyer still write in the conversation of the rejected offer", async () => {
      m.expectStatus(
        await m.api().post(`/conversations/${pendingConversation}/messages`, {
          token: otherBuyer.token,
          body: { message_text: "never mind" }
        }),
        201,
        "buyer's message"
      )
    })
  })

  it("a refused resolve (report not pending) rejects no offer", async () => {
    const seller = await m.seller()
    const buyer = await m.user()
    const { request, offers } = await requestWithOffers(buyer, [seller])
    const reportId = await fileReport(buyer, seller)
    m.expectStatus(await resolve(reportId, "dismiss"), 200, "dismiss")
    expectError(await resolve(reportId, "suspend_seller"), 422, "REPORT_NOT_PENDING")
    expect(await offersOf(buyer, request.id)).toEqual({ [offers[0].id]: "pending" })
  })

  describe.skipIf(backend === "pglite")("in the database (PostgreSQL: the rows are read and arranged directly)", () => {
    const rows = <A>(run: Parameters<typeof runSql>[1]) => runSql(databaseUrl()!, run) as Promise<ReadonlyArray<A>>

    it("the resolve writes ReportResolved, SellerSuspended and one OfferRejected per rejected offer to the outbox", async () => {
      const seller = await m.seller()
      const first = await requestWithOffers(await m.user(), [seller])
      const second = await requestWithOffers(await m.user(), [seller])
      const reportId = await fileReport(await m.user(), seller)
      m.expectStatus(await resolve(reportId, "suspend_seller"), 200, "suspend")

      const events = await rows<{ type: string; payload: any; created_at: Date }>(
        (sql) => sql`SELECT type, payload, created_at FROM outbox_events
          WHERE (type = 'OfferRejected' AND payload->>'sellerId' = ${seller.userId})
             OR (type = 'ReportResolved' AND payload->>'reportId' = ${reportId})
             OR (type = 'SellerSuspended' AND payload->>'profileId' = ${seller.profileId})`
      )
      expect(events.map((e) => e.type).sort()).toEqual([
        "OfferRejected",
        "OfferRejected",
        "ReportResolved",
        "SellerSuspended"
      ])
      expect(new Set(events.map((e) => new Date(e.created_at).getTime())).size, "written by one transition").toBe(1)
      expect(events.filter((e) => e.type === "OfferRejected").map((e) => e.payload)).toEqual(
        expect.arrayContaining([
          { offerId: first.offers[0].id, requestId: first.request.id, sellerId: seller.userId },
          { offerId: second.offers[0].id, requestId: second.request.id, sellerId: seller.userId }
        ])
      )
    })

    it("accept refuses a pending offer whose seller is no longer approved (a profile suspended outside the resolve)", async () => {
      const seller = await m.seller()
      const buyer = await m.user()
      const { request, offers } = await requestWithOffers(buyer, [seller])
      await rows((sql) => sql`UPDATE seller_profiles SET status = 'suspended' WHERE id = ${seller.profileId}`)

      expectError(
        await m.api().post(`/offers/${offers[0].id}/accept`, { token: buyer.token }),
        422,
        "OFFER_NOT_PENDING"
      )
      expect(await dealCount(buyer)).toBe(0)
      expect(await requestOf(buyer, request.id)).toMatchObject({ status: "active", closed_at: null })
      expect(await offersOf(buyer, request.id)).toEqual({ [offers[0].id]: "pending" })
    })
  })
})

/*
 * Suspension racing offers and accepts, on PostgreSQL only (PGlite is one connection, nothing overlaps).
 * Offer and accept hold the seller's profile under a shared lock taken before the request, and the resolve
 * locks it for update before rejecting the seller's pending offers, so whatever the interleaving no pending
 * offer of a suspended seller survives and no accept slips past a committed suspension.
 */
describe("seller suspension races (postgres)", () => {
  const ROUNDS = 6
  const OFFERS = 6
  const { server } = useServerWithDatabase("postgres", { settings: marketSettings })
  const m = market(server)

  /** Starts a call after a delay, so the calls of a round land before, during and after the suspension. */
  const later = <A>(ms: number, call: () => Promise<A>) =>
    new Promise<void>((resolve) => setTimeout(resolve, ms)).then(call)

  const show = (responses: ReadonlyArray<Response>) =>
    JSON.stringify(responses.map((r) => [r.status, r.body?.error?.code]))

  const suspendAt = async (seller: SignedIn) => {
    const reporter = await m.user()
    const report = m.expectStatus(
      await m
        .api()
        .post("/reports", { token: reporter.token, body: { reported_user_id: seller.userId, reason: "scam" } }),
      201,
      "report"
    ).body.data
    const { token } = await m.admin()
    return () => m.api().put(`/admin/reports/${report.id}/resolve`, { token, body: { action: "suspend_seller" } })
  }

  it(`suspension and ${OFFERS} offers of the seller at once: each offer is refused 403 or made and then rejected`, async () => {
    const buyer = await m.user()
    let made = 0
    let refused = 0
    for (let round = 0; round < ROUNDS; round++) {
      const seller = await m.seller()
      const requests = await Promise.all(Array.from({ length: OFFERS }, () => m.request(buyer)))
      const resolve = await suspendAt(seller)

      const [resolved, ...offers] = await Promise.all([
        resolve(),
        ...requests.map((r, i) =>
          later(i * 30, () => m.api().post("/offers", { token: seller.token, body: anOfferBody(r.id) }))
        )
      ])

      expect(resolved!.status, JSON.stringify(resolved!.body)).toBe(200)
      for (const [i, offer] of offers.entries()) {
        expect([201, 403], show(offers)).toContain(offer.status)
        const request = requests[i]
        const listed = (await m.api().get(`/requests/${request.id}/offers`, { token: buyer.token })).body.data.offers
        const detail = (await m.api().get(`/requests/${request.id}`, { token: buyer.token })).body.data
        if (offer.status === 201) {
          made += 1
          expect(listed.map((o) => [o.id, o.status])).toEqual([[offer.body.data.id, "rejected"]])
          expect(detail.offer_count).toBe(1)
        } else {
          refused += 1
          expect(offer.body.error.code).toBe("SELLER_NOT_APPROVED")
          expect(listed).toEqual([])
          expect(detail.offer_count).toBe(0)
        }
      }
      const mine = (await m.api().get("/offers/my?per_page=50", { token: seller.token })).body.data.offers
      expect(
        mine.filter((o) => o.status === "pending"),
        "pending offers of a suspended seller"
      ).toEqual([])
    }
    expect(made + refused).toBe(ROUNDS * OFFERS)
  }, 240_000)

  it("suspension and the buyer's accept of the seller's offer at once: either the deal stands or the offer is rejected", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const buyer = await m.user()
      const seller = await m.seller()
      const request = await m.request(buyer)
      const offer = await m.offer(seller, request.id)
      const resolve = await suspendAt(seller)

      const [resolved, accept] = await Promise.all([
        resolve(),
        m.api().post(`/offers/${offer.id}/accept`, { token: buyer.token })
      ])

      expect(resolved!.status, JSON.stringify(resolved!.body)).toBe(200)
      const status = (await m.api().get(`/requests/${request.id}/offers`, { token: buyer.token })).body.data.offers[0]
        .status
      const detail = (await m.api().get(`/requests/${request.id}`, { token: buyer.token })).body.data
      const deals = (await m.api().get("/deals/my", { token: buyer.token })).body.data.pagination.total
      if (accept!.status === 200) {
        expect({ status, request: detail.status, deals }).toEqual({ status: "accepted", request: "closed", deals: 1 })
      } else {
        expectError(accept!, 422, "OFFER_NOT_PENDING")
        expect({ status, request: detail.status, deals }).toEqual({ status: "rejected", request: "active", deals: 0 })
      }
    }
  }, 240_000)
})
