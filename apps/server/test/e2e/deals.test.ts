import { describe, expect, it } from "vitest"
import { expectError, ISO_UTC, keysOf, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends, type Query } from "../support/harness.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe.each(backends)("deals on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  describe("GET /deals/my", () => {
    it("lists a deal for both parties with request, offer, buyer and seller objects", async () => {
      const buyer = await m.user("Buyer Name")
      const seller = await m.seller("Seller Name")
      const posted = await m.request(buyer, { product_brand: "Google", product_model: "Pixel 8" })
      const offer = await m.offer(seller, posted.id, { price: 1234.5 })
      const deal = await m.accept(buyer, offer.id)

      const expected = {
        id: deal.id,
        status: "accepted",
        created_at: deal.created_at,
        request: { id: posted.id, product_brand: "Google", product_model: "Pixel 8" },
        offer: { id: offer.id, price: 1234.5, revision: 1 },
        buyer: { id: buyer.userId, name: "Buyer Name", deleted: false },
        seller: { id: seller.userId, name: "Seller Name", deleted: false, rating_avg: 0 }
      }
      for (const party of [buyer, seller]) {
        const response = await m.api().get("/deals/my", { token: party.token })
        expect(response.status).toBe(200)
        expect(response.body.data.deals).toEqual([expected])
        expect(response.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 1, last_page: 1 })
      }
      const stranger = await m.user()
      const none = await m.api().get("/deals/my", { token: stranger.token })
      expect(none.body.data).toEqual({
        deals: [],
        pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1 }
      })
    })

    it("merges both roles newest first, filters by role and status, and pages", async () => {
      const trader = await m.seller("Trader")
      const otherSeller = await m.seller()
      const otherBuyer = await m.user()
      // trader as buyer, then as seller, then as buyer again
      const asBuyer1 = await m.accept(trader, (await m.offer(otherSeller, (await m.request(trader)).id)).id)
      server().clock.advance(1000)
      const asSeller = await m.accept(otherBuyer, (await m.offer(trader, (await m.request(otherBuyer)).id)).id)
      server().clock.advance(1000)
      const asBuyer2 = await m.accept(trader, (await m.offer(otherSeller, (await m.request(trader)).id)).id)
      await m.api().put(`/deals/${asBuyer2.id}/complete`, { token: trader.token })

      const ids = async (query: Query) => {
        const response = await m.api().get(`/deals/my${query}`, { token: trader.token })
        expect(response.status).toBe(200)
        return response.body.data
      }
      expect((await ids("")).deals.map((d) => d.id)).toEqual([asBuyer2.id, asSeller.id, asBuyer1.id])
      expect((await ids("?role=buyer")).deals.map((d) => d.id)).toEqual([asBuyer2.id, asBuyer1.id])
      expect((await ids("?role=seller")).deals.map((d) => d.id)).toEqual([asSeller.id])
      expect((await ids("?status=completed")).deals.map((d) => d.id)).toEqual([asBuyer2.id])
      expect((await ids("?status=accepted&role=buyer")).deals.map((d) => d.id)).toEqual([asBuyer1.id])
      expect((await ids("?status=cancelled")).deals).toEqual([])
      const page2 = await ids("?per_page=1&page=2")
      expect(page2.deals.map((d) => d.id)).toEqual([asSeller.id])
      expect(page2.pagination).toEqual({ current_page: 2, per_page: 1, total: 3, last_page: 3 })
      const page3 = await ids("?per_page=2&page=2")
      expect(page3.deals.map((d) => d.id)).toEqual([asBuyer1.id])
      expect((await ids("?role=buyer&per_page=1")).pagination).toEqual({
        current_page: 1,
        per_page: 1,
        total: 2,
        last_page: 2
      })
    })

    it.each(["status=pending", "status=done", "role=admin", "role=", "per_page=0", "per_page=51", "page=0"])(
      "refuses %s with 400 VALIDATION_ERROR",
      async (query) => {
        const user = await m.user()
        expectError(await m.api().get(`/deals/my?${query}`, { token: user.token }), 400, "VALIDATION_ERROR")
      }
    )

    it("needs a token", async () => {
      expectError(await m.api().get("/deals/my"), 401, "UNAUTHORIZED")
    })
  })

  describe("GET /deals/{id}", () => {
    it("shows either party the deal with its conversation, request, offer, buyer and seller", async () => {
      const made = await m.deal()
      for (const party of [made.buyer, made.seller]) {
        const response = await m.api().get(`/deals/${made.deal.id}`, { token: party.token })
        expect(response.status).toBe(200)
        const data = response.body.data
        expect(keysOf(data)).toEqual([
          "buyer",
          "cancel_description",
          "cancel_reason",
          "cancelled_at",
          "completed_at",
          "conversation_id",
          "created_at",
          "id",
          "offer",
          "request",
          "seller",
          "status"
        ])
        expect(data).toMatchObject({
          id: made.deal.id,
          status: "accepted",
          created_at: made.deal.created_at,
          completed_at: null,
          cancelled_at: null,
          cancel_reason: null,
          cancel_description: null,
          request: {
            id: made.request.id,
            category: "phone",
            product_brand: "Apple",
            product_model: "iPhone 15",
            budget_min: 1000,
            budget_max: 2000,
            location_district: "Al Olaya",
            location_city: "Riyadh"
          },
          offer: {
            id: made.offer.id,
            price: 1500,
            availability: "Today",
            condition_notes: "Like new",
            warranty_notes: "6 months",
            status: "accepted"
          },
          buyer: { id: made.buyer.userId, name: "Buyer" },
          seller: { id: made.seller.userId, name: "Seller", rating_avg: 0, rating_count: 0 }
        })
        expect(data.conversation_id).toMatch(uuid)
      }
    })

    it("is 403 for anybody else (an admin, a rejected seller of the request), 404 for unknown ids, 401 without a token", async () => {
      const buyer = await m.user()
      const winner = await m.seller()
      const loser = await m.seller()
      const posted = await m.request(buyer)
      const chosen = await m.offer(winner, posted.id)
      await m.offer(loser, posted.id)
      const deal = await m.accept(buyer, chosen.id)
      const admin = await m.admin()
      const stranger = await m.user()
      for (const user of [loser, admin, stranger]) {
        expectError(await m.api().get(`/deals/${deal.id}`, { token: user.token }), 403, "FORBIDDEN")
      }
      expectError(await m.api().get(`/deals/${unknownId()}`, { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get("/deals/42", { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get(`/deals/${deal.id}`), 401, "UNAUTHORIZED")
    })
  })

  describe("PUT /deals/{id}/complete", () => {
    it("lets the buyer complete an accepted deal", async () => {
      const made = await m.deal()
      const response = await m.api().put(`/deals/${made.deal.id}/complete`, { token: made.buyer.token })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        id: made.deal.id,
        status: "completed",
        completed_at: expect.stringMatching(ISO_UTC)
      })
      const detail = await m.api().get(`/deals/${made.deal.id}`, { token: made.seller.token })
      expect(detail.body.data).toMatchObject({
        status: "completed",
        completed_at: response.body.data.completed_at,
        cancelled_at: null,
        cancel_reason: null,
        cancel_description: null
      })
    })

    it("works from accepted only: 422 DEAL_NOT_ACTIVE on a completed or cancelled deal", async () => {
      const completed = await m.completedDeal()
      expectError(
        await m.api().put(`/deals/${completed.deal.id}/complete`, { token: completed.buyer.token }),
        422,
        "DEAL_NOT_ACTIVE"
      )
      const cancelled = await m.deal()
      await m.api().put(`/deals/${cancelled.deal.id}/cancel`, {
        token: cancelled.buyer.token,
        body: { reason: "Changed my mind" }
      })
      expectError(
        await m.api().put(`/deals/${cancelled.deal.id}/complete`, { token: cancelled.buyer.token }),
        422,
        "DEAL_NOT_ACTIVE"
      )
      const detail = await m.api().get(`/deals/${cancelled.deal.id}`, { token: cancelled.buyer.token })
      expect(detail.body.data).toMatchObject({ status: "cancelled", completed_at: null })
    })

    it("is 403 for the seller and strangers (the deal stays accepted), 404 for unknown ids", async () => {
      const made = await m.deal()
      const stranger = await m.user()
      expectError(await m.api().put(`/deals/${made.deal.id}/complete`, { token: made.seller.token }), 403, "FORBIDDEN")
      expectError(await m.api().put(`/deals/${made.deal.id}/complete`, { token: stranger.token }), 403, "FORBIDDEN")
      expectError(await m.api().put(`/deals/${unknownId()}/complete`, { token: made.buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().put(`/deals/${made.deal.id}/complete`), 401, "UNAUTHORIZED")
      const detail = await m.api().get(`/deals/${made.deal.id}`, { token: made.buyer.token })
      expect(detail.body.data.status).toBe("accepted")
    })
  })

  describe("PUT /deals/{id}/cancel", () => {
    it("lets the buyer cancel an accepted deal with a reason; the request stays closed", async () => {
      const made = await m.deal()
      const response = await m.api().put(`/deals/${made.deal.id}/cancel`, {
        token: made.buyer.token,
        body: { reason: "  Found it cheaper  ", description: "Sorry" }
      })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        id: made.deal.id,
        status: "cancelled",
        cancelled_at: expect.stringMatching(ISO_UTC)
      })
      const request = await m.api().get(`/requests/${made.request.id}`, { token: made.buyer.token })
      expect(request.body.data.status).toBe("closed")
      for (const party of [made.buyer, made.seller]) {
        const detail = await m.api().get(`/deals/${made.deal.id}`, { token: party.token })
        expect(detail.body.data).toMatchObject({
          status: "cancelled",
          cancelled_at: response.body.data.cancelled_at,
          cancel_reason: "Found it cheaper",
          cancel_description: "Sorry"
        })
      }
    })

    it("shows a cancel without a description as cancel_description null", async () => {
      const made = await m.deal()
      const response = await m.api().put(`/deals/${made.deal.id}/cancel`, {
        token: made.buyer.token,
        body: { reason: "Seller did not show up" }
      })
      expect(response.status).toBe(200)
      const detail = await m.api().get(`/deals/${made.deal.id}`, { token: made.seller.token })
      expect(detail.body.data).toMatchObject({ cancel_reason: "Seller did not show up", cancel_description: null })
    })

    it("needs a reason of 1 to 200 characters; description is optional and at most 2000", async () => {
      const made = await m.deal()
      const url = `/deals/${made.deal.id}/cancel` as const
      const token = made.buyer.token
      for (const body of [
        {},
        { reason: "" },
        { reason: "   " },
        { reason: "x".repeat(201) },
        { reason: 5 },
        { description: "only" }
      ]) {
        const error = expectError(await m.api().raw.put(url, { token, body }), 400, "VALIDATION_ERROR")
        expect(Object.keys(error.details)).toContain("reason")
      }
      const long = expectError(
        await m.api().put(url, { token, body: { reason: "ok", description: "x".repeat(2001) } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(long.details)).toEqual(["description"])
      expectError(await m.api().raw.put(url, { token }), 400, "VALIDATION_ERROR")
      expect((await m.api().get(`/deals/${made.deal.id}`, { token })).body.data.status).toBe("accepted")
      const ok = await m.api().put(url, { token, body: { reason: "x".repeat(200) } })
      expect(ok.status).toBe(200)
    })

    it("works from accepted only: 422 DEAL_NOT_ACTIVE", async () => {
      const completed = await m.completedDeal()
      expectError(
        await m
          .api()
          .put(`/deals/${completed.deal.id}/cancel`, { token: completed.buyer.token, body: { reason: "late" } }),
        422,
        "DEAL_NOT_ACTIVE"
      )
      const made = await m.deal()
      await m.api().put(`/deals/${made.deal.id}/cancel`, { token: made.buyer.token, body: { reason: "first" } })
      expectError(
        await m.api().put(`/deals/${made.deal.id}/cancel`, { token: made.buyer.token, body: { reason: "again" } }),
        422,
        "DEAL_NOT_ACTIVE"
      )
    })

    it("is 403 for the seller and strangers, 404 for unknown ids; a bad body is 400 first", async () => {
      const made = await m.deal()
      const stranger = await m.user()
      const url = `/deals/${made.deal.id}/cancel` as const
      expectError(await m.api().put(url, { token: made.seller.token, body: { reason: "no" } }), 403, "FORBIDDEN")
      expectError(await m.api().put(url, { token: stranger.token, body: { reason: "no" } }), 403, "FORBIDDEN")
      expectError(await m.api().raw.put(url, { token: made.seller.token, body: {} }), 400, "VALIDATION_ERROR")
      expectError(
        await m.api().put(`/deals/${unknownId()}/cancel`, { token: made.buyer.token, body: { reason: "no" } }),
        404,
        "NOT_FOUND"
      )
      expectError(await m.api().put(url, { body: { reason: "no" } }), 401, "UNAUTHORIZED")
      expect((await m.api().get(`/deals/${made.deal.id}`, { token: made.buyer.token })).body.data.status).toBe(
        "accepted"
      )
    })

    it("of a simultaneous complete and cancel exactly one wins", async () => {
      const made = await m.deal()
      const [complete, cancel] = await Promise.all([
        m.api().put(`/deals/${made.deal.id}/complete`, { token: made.buyer.token }),
        m.api().put(`/deals/${made.deal.id}/cancel`, { token: made.buyer.token, body: { reason: "race" } })
      ])
      expect([complete.status, cancel.status].sort()).toEqual([200, 422])
      const detail = await m.api().get(`/deals/${made.deal.id}`, { token: made.buyer.token })
      expect(detail.body.data.status).toBe(complete.status === 200 ? "completed" : "cancelled")
    })
  })
})
