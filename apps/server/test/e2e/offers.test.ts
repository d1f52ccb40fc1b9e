import { describe, expect, it } from "vitest"
import { anOfferBody, expectError, ISO_UTC, keysOf, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends } from "../support/harness.js"
import { connectAs } from "../support/ws-client.js"

const offerKeys = [
  "availability",
  "condition_notes",
  "counter",
  "created_at",
  "id",
  "photos",
  "price",
  "request_id",
  "revision",
  "seller_id",
  "status",
  "valid_until",
  "warranty_notes"
]

describe.each(backends)("offers on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  const requestOf = async (token: string, id: string) => (await m.api().get(`/requests/${id}`, { token })).body.data
  const offersOf = async (token: string, requestId: string) =>
    (await m.api().get(`/requests/${requestId}/offers`, { token })).body.data.offers

  describe("POST /offers", () => {
    it("lets an approved seller offer: 201 with the offer, pending, and the request's offer_count goes up", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const response = await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id) })
      expect(response.status).toBe(201)
      expect(keysOf(response.body.data)).toEqual(offerKeys)
      expect(response.body.data).toEqual({
        id: expect.any(String),
        request_id: posted.id,
        seller_id: seller.userId,
        price: 1500,
        revision: 1,
        availability: "Today",
        condition_notes: "Like new",
        warranty_notes: "6 months",
        status: "pending",
        created_at: expect.stringMatching(ISO_UTC),
        valid_until: null,
        counter: null,
        photos: []
      })
      expect(response.body.message).toBeUndefined()
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(1)
    })

    it("tells the buyer's open sockets of every new offer at once (offer_created), and nobody else's", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const rival = await m.seller()
      const posted = await m.request(buyer)
      const buyerSockets = [await connectAs(server().wsUrl, buyer.token), await connectAs(server().wsUrl, buyer.token)]
      const others = [await connectAs(server().wsUrl, seller.token), await connectAs(server().wsUrl, rival.token)]
      try {
        const first = (await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id) })).body.data
        const second = (
          await m.api().post("/offers", { token: rival.token, body: { ...anOfferBody(posted.id), price: 1250.5 } })
        ).body.data
        const eventOf = (offer: typeof first) => ({
          type: "event",
          channel: `user.${buyer.userId}`,
          event: "offer_created",
          data: {
            offer_id: offer.id,
            request_id: posted.id,
            seller_id: offer.seller_id,
            price: offer.price,
            created_at: offer.created_at
          }
        })
        for (const socket of buyerSockets) {
          expect(await socket.nextOfType("event")).toEqual(eventOf(first))
          expect(await socket.nextOfType("event")).toEqual(eventOf(second))
        }
        // The sellers' sockets were open all along and heard nothing: an offer is news to its buyer only.
        const marker = await m.request(buyer)
        await m.api().post("/offers", { token: rival.token, body: anOfferBody(marker.id) })
        await buyerSockets[0]!.next((frame) => frame.type === "event" && frame.data.request_id === marker.id)
        for (const socket of others) expect(socket.all("event")).toEqual([])
      } finally {
        for (const socket of [...buyerSockets, ...others]) socket.close()
      }
    })

    it("needs only request_id, price and availability", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const response = await m.api().post("/offers", {
        token: seller.token,
        body: { request_id: posted.id, price: 1999.99, availability: "Tomorrow" }
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toMatchObject({ price: 1999.99, condition_notes: null, warranty_notes: null })
    })

    it("accepts a price outside the budget with a localized warning in message", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const low = await m.request(buyer)
      const high = await m.request(buyer)
      const below = await m.api().post("/offers", {
        token: seller.token,
        body: anOfferBody(low.id, { price: 999.99 }),
        headers: { "accept-language": "en" }
      })
      expect(below.status).toBe(201)
      expect(below.body.message).toBe("Note: the price is outside the buyer's budget")
      const above = await m
        .api()
        .post("/offers", { token: seller.token, body: anOfferBody(high.id, { price: 2000.01 }) })
      expect(above.status).toBe(201)
      expect(above.body.message).toBe("تنبيه: السعر خارج نطاق ميزانية المشتري")
      expect(above.body.data.status).toBe("pending")
    })

    it("gives no warning at the budget's bounds", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      for (const price of [1000, 2000]) {
        const posted = await m.request(buyer)
        const response = await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id, { price }) })
        expect(response.status).toBe(201)
        expect(response.body.message).toBeUndefined()
      }
    })

    it("refuses users who are not approved sellers with 403 SELLER_NOT_APPROVED, changing nothing", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      const noProfile = await m.user()
      const pending = await m.applicant()
      const rejected = await m.applicant()
      const { token } = await m.admin()
      await m.api().put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token })
      for (const user of [noProfile, pending, rejected]) {
        expectError(
          await m.api().post("/offers", { token: user.token, body: anOfferBody(posted.id) }),
          403,
          "SELLER_NOT_APPROVED"
        )
      }
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(0)
      expect(await offersOf(buyer.token, posted.id)).toEqual([])
    })

    it("refuses an offer on one's own request with 422 CANNOT_OFFER_ON_OWN_REQUEST", async () => {
      const seller = await m.seller()
      const posted = await m.request(seller)
      expectError(
        await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id) }),
        422,
        "CANNOT_OFFER_ON_OWN_REQUEST"
      )
      expect((await requestOf(seller.token, posted.id)).offer_count).toBe(0)
    })

    it("refuses an offer on a closed request with 422 REQUEST_NOT_ACTIVE", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })
      expectError(
        await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id) }),
        422,
        "REQUEST_NOT_ACTIVE"
      )
    })

    it("allows one pending offer per seller per request: a second is 422 DUPLICATE_PENDING_OFFER", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const other = await m.seller()
      const posted = await m.request(buyer)
      await m.offer(seller, posted.id)
      expectError(
        await m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id, { price: 1200 }) }),
        422,
        "DUPLICATE_PENDING_OFFER"
      )
      await m.offer(other, posted.id)
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(2)
    })

    it("of simultaneous offers of one seller on one request exactly one is stored", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          m.api().post("/offers", { token: seller.token, body: anOfferBody(posted.id, { price: 1000 + i }) })
        )
      )
      expect(responses.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422])
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(1)
      expect(await offersOf(buyer.token, posted.id)).toHaveLength(1)
    })

    it("counts simultaneous offers of different sellers exactly", async () => {
      const buyer = await m.user()
      const sellers = await Promise.all(Array.from({ length: 4 }, () => m.seller()))
      const posted = await m.request(buyer)
      const responses = await Promise.all(
        sellers.map((s) => m.api().post("/offers", { token: s.token, body: anOfferBody(posted.id) }))
      )
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201])
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(4)
    })

    it("answers 404 for an unknown request, before checking the seller (404 outranks 403)", async () => {
      const seller = await m.seller()
      const nobody = await m.user()
      expectError(
        await m.api().post("/offers", { token: seller.token, body: anOfferBody(unknownId()) }),
        404,
        "NOT_FOUND"
      )
      expectError(
        await m.api().post("/offers", { token: nobody.token, body: anOfferBody(unknownId()) }),
        404,
        "NOT_FOUND"
      )
    })

    it.each([
      ["request_id missing", { request_id: undefined }, "request_id"],
      ["request_id not a UUID", { request_id: "abc" }, "request_id"],
      ["price missing", { price: undefined }, "price"],
      ["price zero", { price: 0 }, "price"],
      ["price negative", { price: -1 }, "price"],
      ["price with 3 decimals", { price: 1.005 }, "price"],
      ["price a string", { price: "1500" }, "price"],
      ["price over 1,000,000,000", { price: 1_000_000_001 }, "price"],
      ["availability missing", { availability: undefined }, "availability"],
      ["availability blank", { availability: "  " }, "availability"],
      ["availability over 200 characters", { availability: "x".repeat(201) }, "availability"],
      ["condition_notes over 2000 characters", { condition_notes: "x".repeat(2001) }, "condition_notes"],
      ["warranty_notes over 2000 characters", { warranty_notes: "x".repeat(2001) }, "warranty_notes"]
    ])("refuses %s with 400 VALIDATION_ERROR naming the field, storing nothing", async (_, change, field) => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const error = expectError(
        await m.api().raw.post("/offers", { token: seller.token, body: { ...anOfferBody(posted.id), ...change } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toContain(field)
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(0)
    })

    it("ignores status and seller_id in the body", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const response = await m.api().raw.post("/offers", {
        token: seller.token,
        body: { ...anOfferBody(posted.id), status: "accepted", seller_id: buyer.userId }
      })
      expect(response.status).toBe(201)
      expect(response.body.data).toMatchObject({ status: "pending", seller_id: seller.userId })
    })

    it("needs a token", async () => {
      expectError(await m.api().post("/offers", { body: anOfferBody(unknownId()) }), 401, "UNAUTHORIZED")
    })
  })

  describe("GET /requests/{id}/offers", () => {
    it("shows the owner every offer but withdrawn ones, newest first, with the seller object", async () => {
      const buyer = await m.user()
      const first = await m.seller("First Seller", { location_district: "Al Yasmin" })
      const second = await m.seller("Second Seller")
      const third = await m.seller()
      const posted = await m.request(buyer)
      const a = await m.offer(first, posted.id)
      server().clock.advance(1000)
      const b = await m.offer(second, posted.id, { price: 1700 })
      server().clock.advance(1000)
      const c = await m.offer(third, posted.id)
      expect((await m.api().delete(`/offers/${c.id}`, { token: third.token })).status).toBe(200)

      const response = await m.api().get(`/requests/${posted.id}/offers`, { token: buyer.token })
      expect(response.status).toBe(200)
      const offers = response.body.data.offers
      expect(offers.map((o) => o.id)).toEqual([b.id, a.id])
      expect(offers[1]).toEqual({
        id: a.id,
        request_id: posted.id,
        seller: {
          id: first.userId,
          name: "First Seller",
          deleted: false,
          rating_avg: 0,
          rating_count: 0,
          location_district: "Al Yasmin",
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
        },
        price: 1500,
        revision: 1,
        counter: null,
        availability: "Today",
        condition_notes: "Like new",
        warranty_notes: "6 months",
        status: "pending",
        created_at: a.created_at,
        valid_until: null,
        photos: []
      })
      expect(offers[0].seller).toMatchObject({ id: second.userId, name: "Second Seller" })
      expect(offers[0].price).toBe(1700)
    })

    it("shows a seller only their own offers, withdrawn ones included", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const other = await m.seller()
      const posted = await m.request(buyer)
      const withdrawn = await m.offer(seller, posted.id)
      await m.api().delete(`/offers/${withdrawn.id}`, { token: seller.token })
      server().clock.advance(1000)
      const again = await m.offer(seller, posted.id)
      await m.offer(other, posted.id)
      const offers = await offersOf(seller.token, posted.id)
      expect(offers.map((o) => [o.id, o.status])).toEqual([
        [again.id, "pending"],
        [withdrawn.id, "withdrawn"]
      ])
      expect(offers.every((o) => o.seller.id === seller.userId)).toBe(true)
    })

    it("is 403 for anybody else (an approved seller with no offer on it, an admin), 404 for an unknown id", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const bystander = await m.seller()
      const stranger = await m.user()
      const admin = await m.admin()
      const posted = await m.request(buyer)
      await m.offer(seller, posted.id)
      for (const user of [bystander, stranger, admin]) {
        expectError(await m.api().get(`/requests/${posted.id}/offers`, { token: user.token }), 403, "FORBIDDEN")
      }
      expectError(await m.api().get(`/requests/${unknownId()}/offers`, { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get("/requests/not-a-uuid/offers", { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().get(`/requests/${posted.id}/offers`), 401, "UNAUTHORIZED")
    })

    it("is not paginated: every offer in one list, past the default page size, page and per_page ignored", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const made: Array<string> = []
      for (let i = 0; i < 21; i++) {
        const offer = await m.offer(seller, posted.id)
        made.unshift(offer.id)
        server().clock.advance(1000)
        expect((await m.api().delete(`/offers/${offer.id}`, { token: seller.token })).status).toBe(200)
      }
      const last = await m.offer(seller, posted.id)
      made.unshift(last.id)
      const response = await m.api().get(`/requests/${posted.id}/offers?page=2&per_page=1`, { token: seller.token })
      expect(response.status).toBe(200)
      expect(Object.keys(response.body.data)).toEqual(["offers"])
      expect(response.body.data.offers.map((o) => o.id)).toEqual(made)
    })

    it("shows the owner an empty list before any offer", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      const response = await m.api().get(`/requests/${posted.id}/offers`, { token: buyer.token })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({ offers: [] })
    })
  })

  describe("GET /offers/my", () => {
    it("lists the caller's offers newest first with their request, filtered by status, paginated", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const r1 = await m.request(buyer, { product_model: "Galaxy S24", product_brand: "Samsung", budget_max: 3000 })
      const r2 = await m.request(buyer)
      const o1 = await m.offer(seller, r1.id, { price: 2500 })
      server().clock.advance(1000)
      const o2 = await m.offer(seller, r2.id)
      await m.api().delete(`/offers/${o2.id}`, { token: seller.token })

      const all = await m.api().get("/offers/my", { token: seller.token })
      expect(all.status).toBe(200)
      expect(all.body.data.offers.map((o) => o.id)).toEqual([o2.id, o1.id])
      expect(all.body.data.offers[1]).toEqual({
        id: o1.id,
        request_id: r1.id,
        request: { id: r1.id, product_brand: "Samsung", product_model: "Galaxy S24", budget_max: 3000 },
        price: 2500,
        revision: 1,
        status: "pending",
        created_at: o1.created_at,
        valid_until: null,
        counter: null,
        photos: []
      })
      expect(all.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 2, last_page: 1 })

      const withdrawn = await m.api().get("/offers/my?status=withdrawn", { token: seller.token })
      expect(withdrawn.body.data.offers.map((o) => o.id)).toEqual([o2.id])
      expect(withdrawn.body.data.pagination.total).toBe(1)
      const second = await m.api().get("/offers/my?per_page=1&page=2", { token: seller.token })
      expect(second.body.data.offers.map((o) => o.id)).toEqual([o1.id])
      expect(second.body.data.pagination).toEqual({ current_page: 2, per_page: 1, total: 2, last_page: 2 })
    })

    it("is empty for a user who never offered", async () => {
      const user = await m.user()
      const response = await m.api().get("/offers/my", { token: user.token })
      expect(response.body.data).toEqual({
        offers: [],
        pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1 }
      })
    })

    it("refuses an unknown status or a bad page with 400, and needs a token", async () => {
      const user = await m.user()
      expectError(await m.api().get("/offers/my?status=cancelled", { token: user.token }), 400, "VALIDATION_ERROR")
      expectError(await m.api().get("/offers/my?per_page=51", { token: user.token }), 400, "VALIDATION_ERROR")
      expectError(await m.api().get("/offers/my"), 401, "UNAUTHORIZED")
    })
  })

  describe("DELETE /offers/{id}", () => {
    it("withdraws a pending offer: a localized message, status withdrawn, offer_count drops, a new offer is allowed", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const made = await m.offer(seller, posted.id)
      const response = await m
        .api()
        .delete(`/offers/${made.id}`, { token: seller.token, headers: { "accept-language": "en" } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ success: true, data: {}, message: "The offer has been withdrawn" })
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(0)
      expect(await offersOf(buyer.token, posted.id)).toEqual([])
      const mine = await m.api().get("/offers/my", { token: seller.token })
      expect(mine.body.data.offers[0]).toMatchObject({ id: made.id, status: "withdrawn" })
      await m.offer(seller, posted.id)
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(1)
    })

    it("refuses an accepted offer (422 OFFER_ALREADY_ACCEPTED) and a rejected or withdrawn one (422 OFFER_NOT_PENDING)", async () => {
      const buyer = await m.user()
      const winner = await m.seller()
      const loser = await m.seller()
      const quitter = await m.seller()
      const posted = await m.request(buyer)
      const accepted = await m.offer(winner, posted.id)
      const rejected = await m.offer(loser, posted.id)
      const withdrawn = await m.offer(quitter, posted.id)
      await m.api().delete(`/offers/${withdrawn.id}`, { token: quitter.token })
      await m.accept(buyer, accepted.id)
      expectError(
        await m.api().delete(`/offers/${accepted.id}`, { token: winner.token }),
        422,
        "OFFER_ALREADY_ACCEPTED"
      )
      expectError(await m.api().delete(`/offers/${rejected.id}`, { token: loser.token }), 422, "OFFER_NOT_PENDING")
      expectError(await m.api().delete(`/offers/${withdrawn.id}`, { token: quitter.token }), 422, "OFFER_NOT_PENDING")
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(2)
    })

    it("is 403 for anybody but the offer's seller (the request's owner included), 404 for unknown ids", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const other = await m.seller()
      const posted = await m.request(buyer)
      const made = await m.offer(seller, posted.id)
      expectError(await m.api().delete(`/offers/${made.id}`, { token: buyer.token }), 403, "FORBIDDEN")
      expectError(await m.api().delete(`/offers/${made.id}`, { token: other.token }), 403, "FORBIDDEN")
      expectError(await m.api().delete(`/offers/${unknownId()}`, { token: seller.token }), 404, "NOT_FOUND")
      expectError(await m.api().delete("/offers/123", { token: seller.token }), 404, "NOT_FOUND")
      expectError(await m.api().delete(`/offers/${made.id}`), 401, "UNAUTHORIZED")
      expect((await offersOf(buyer.token, posted.id))[0].status).toBe("pending")
    })
  })

  describe("closing a request with offers", () => {
    it("rejects its pending offers and leaves withdrawn ones alone", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const quitter = await m.seller()
      const posted = await m.request(buyer)
      const pending = await m.offer(seller, posted.id)
      const withdrawn = await m.offer(quitter, posted.id)
      await m.api().delete(`/offers/${withdrawn.id}`, { token: quitter.token })
      expect((await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })).status).toBe(200)
      expect((await offersOf(buyer.token, posted.id)).map((o) => [o.id, o.status])).toEqual([[pending.id, "rejected"]])
      expect((await offersOf(quitter.token, posted.id))[0].status).toBe("withdrawn")
      expectError(await m.api().post(`/offers/${pending.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")
    })
  })

  describe("POST /offers/{id}/accept", () => {
    it("makes the deal, accepts the offer, rejects the other pending offers and closes the request", async () => {
      const buyer = await m.user()
      const winner = await m.seller()
      const loser = await m.seller()
      const quitter = await m.seller()
      const posted = await m.request(buyer)
      const chosen = await m.offer(winner, posted.id)
      const other = await m.offer(loser, posted.id)
      const withdrawn = await m.offer(quitter, posted.id)
      await m.api().delete(`/offers/${withdrawn.id}`, { token: quitter.token })

      const response = await m.api().post(`/offers/${chosen.id}/accept`, { token: buyer.token })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({
        deal: {
          id: expect.any(String),
          request_id: posted.id,
          offer_id: chosen.id,
          buyer_id: buyer.userId,
          seller_id: winner.userId,
          status: "accepted",
          created_at: expect.stringMatching(ISO_UTC)
        }
      })
      const statuses = Object.fromEntries((await offersOf(buyer.token, posted.id)).map((o) => [o.id, o.status]))
      expect(statuses).toEqual({ [chosen.id]: "accepted", [other.id]: "rejected" })
      expect((await offersOf(quitter.token, posted.id))[0].status).toBe("withdrawn")
      const request = await requestOf(buyer.token, posted.id)
      expect(request.status).toBe("closed")
      expect(request.closed_at).toMatch(ISO_UTC)
      expect(request.offer_count).toBe(2)
    })

    it("refuses an offer that is not pending: 422 OFFER_ALREADY_ACCEPTED / OFFER_NOT_PENDING", async () => {
      const buyer = await m.user()
      const winner = await m.seller()
      const loser = await m.seller()
      const posted = await m.request(buyer)
      const chosen = await m.offer(winner, posted.id)
      const other = await m.offer(loser, posted.id)
      await m.accept(buyer, chosen.id)
      expectError(
        await m.api().post(`/offers/${chosen.id}/accept`, { token: buyer.token }),
        422,
        "OFFER_ALREADY_ACCEPTED"
      )
      expectError(await m.api().post(`/offers/${other.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")

      const another = await m.request(buyer)
      const withdrawn = await m.offer(loser, another.id)
      await m.api().delete(`/offers/${withdrawn.id}`, { token: loser.token })
      expectError(
        await m.api().post(`/offers/${withdrawn.id}/accept`, { token: buyer.token }),
        422,
        "OFFER_NOT_PENDING"
      )
      expect((await requestOf(buyer.token, another.id)).status).toBe("active")
    })

    it("is 403 for anybody but the request's owner (the offer's seller included), changing nothing", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const stranger = await m.user()
      const posted = await m.request(buyer)
      const made = await m.offer(seller, posted.id)
      expectError(await m.api().post(`/offers/${made.id}/accept`, { token: seller.token }), 403, "FORBIDDEN")
      expectError(await m.api().post(`/offers/${made.id}/accept`, { token: stranger.token }), 403, "FORBIDDEN")
      expectError(await m.api().post(`/offers/${unknownId()}/accept`, { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().post("/offers/nope/accept", { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await m.api().post(`/offers/${made.id}/accept`), 401, "UNAUTHORIZED")
      expect((await requestOf(buyer.token, posted.id)).status).toBe("active")
      expect((await offersOf(buyer.token, posted.id))[0].status).toBe("pending")
    })

    it("of many simultaneous accepts on one request exactly one succeeds and the rest get 422", async () => {
      const buyer = await m.user()
      const sellers = await Promise.all(Array.from({ length: 5 }, () => m.seller()))
      const posted = await m.request(buyer)
      const made = await Promise.all(sellers.map((s) => m.offer(s, posted.id)))
      const attempts = [...made, ...made].map((o) => m.api().post(`/offers/${o.id}/accept`, { token: buyer.token }))
      const responses = await Promise.all(attempts)
      const succeeded = responses.filter((r) => r.status === 200)
      expect(succeeded).toHaveLength(1)
      for (const r of responses.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(422)
        expect(["OFFER_ALREADY_ACCEPTED", "OFFER_NOT_PENDING", "REQUEST_NOT_ACTIVE"]).toContain(r.body.error.code)
      }
      const winner = succeeded[0]!.body.data.deal.offer_id
      const statuses = (await offersOf(buyer.token, posted.id)).map((o) => [o.id, o.status])
      expect(statuses.filter(([, s]) => s === "accepted")).toEqual([[winner, "accepted"]])
      expect(statuses.filter(([, s]) => s === "rejected")).toHaveLength(4)
      expect((await requestOf(buyer.token, posted.id)).status).toBe("closed")
    })

    it("an accept racing a withdrawal: the request ends either closed with the offer accepted, or active with it withdrawn", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const made = await m.offer(seller, posted.id)
      const [accept, withdraw] = await Promise.all([
        m.api().post(`/offers/${made.id}/accept`, { token: buyer.token }),
        m.api().delete(`/offers/${made.id}`, { token: seller.token })
      ])
      expect([accept.status, withdraw.status].sort()).toEqual([200, 422])
      const request = await requestOf(buyer.token, posted.id)
      const offer = (await offersOf(seller.token, posted.id))[0]
      if (accept.status === 200) {
        expect([request.status, offer.status, request.offer_count]).toEqual(["closed", "accepted", 1])
      } else {
        expect([request.status, offer.status, request.offer_count]).toEqual(["active", "withdrawn", 0])
      }
    })
  })
})
