import type { TestServer } from "@talab/testkit"
import { describe, expect, it } from "vitest"
import { anOfferBody, expectError, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { bothBackends, client, type SignedIn, signIn } from "../support/harness.js"

/*
 * Offer validity and request expiry (docs/DECISIONS.md). Time moves by the test server's clock only; the API
 * computes `expired` from it at once, and the expiry job (woken by every `clock.advance`, or run with
 * `runExpiry()`) writes it down and queues the pushes.
 *
 * The suite shares one server and one clock, and access tokens last 24 hours: a test that moves the clock by
 * days signs its users in again after, and those tests come last (the cached admin token dies with them).
 */

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

describe.each(bothBackends)("offer validity and request expiry on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const api = () => client(server())
  const ahead = (ms: number) => new Date(server().clock.now().getTime() + ms).toISOString()
  const again = (user: SignedIn) => signIn(server(), api(), user.phone)
  const requestOf = async (token: string, id: string) => (await api().get(`/requests/${id}`, { token })).body.data
  const offersOf = async (token: string, requestId: string) =>
    (await api().get(`/requests/${requestId}/offers`, { token })).body.data.offers
  const withDevice = async (user: SignedIn) => {
    const token = `device-${user.userId}`
    m.expectStatus(
      await api().post("/device-tokens", { token: user.token, body: { platform: "android", push_token: token } }),
      201,
      "device"
    )
    return token
  }
  const pushesOf = (s: TestServer, userId: string, type: string, requestId: string) =>
    s.pushes.to(userId).filter((p) => p.type === type && p.data.request_id === requestId)

  describe("an offer's valid_until", () => {
    it("is refused outside 1 hour to 30 days ahead with 400 VALIDATION_ERROR on valid_until, creating nothing", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      for (const validUntil of [ahead(HOUR - 60_000), ahead(30 * DAY + 60_000), ahead(-HOUR), "tomorrow", 12]) {
        const response = await api().raw.post("/offers", {
          token: seller.token,
          body: { ...anOfferBody(posted.id), valid_until: validUntil },
          headers: { "accept-language": "en" }
        })
        const error = expectError(response, 400, "VALIDATION_ERROR")
        expect(Object.keys(error.details), String(validUntil)).toEqual(["valid_until"])
      }
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(0)
      expect(await offersOf(buyer.token, posted.id)).toEqual([])
    })

    it("is shown on the offer, and an offer within it is accepted as before", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const posted = await m.request(buyer)
      const validUntil = ahead(2 * HOUR)
      const made = await m.offer(seller, posted.id, { valid_until: validUntil })
      expect(made).toMatchObject({ status: "pending", valid_until: validUntil })
      expect((await m.offer(seller, (await m.request(buyer)).id)).valid_until).toBeNull()
      server().clock.advance(HOUR)
      expect((await m.accept(buyer, made.id)).offer_id).toBe(made.id)
    })

    it("once passed, expires the offer at once: 422 OFFER_EXPIRED on accept, out of offer_count, and its seller may offer again", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const other = await m.seller()
      const posted = await m.request(buyer)
      const lapsing = await m.offer(seller, posted.id, { valid_until: ahead(HOUR + 60_000) })
      await m.offer(other, posted.id)
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(2)

      server().clock.advance(HOUR + 61_000)
      // Before any job ran or not: the API answers from the clock.
      expectError(await api().post(`/offers/${lapsing.id}/accept`, { token: buyer.token }), 422, "OFFER_EXPIRED")
      expectError(await api().delete(`/offers/${lapsing.id}`, { token: seller.token }), 422, "OFFER_NOT_PENDING")
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(1)
      expect((await offersOf(seller.token, posted.id)).map((o) => o.status)).toEqual(["expired"])
      const mine = (await api().get("/offers/my?status=expired", { token: seller.token })).body.data
      expect(mine.offers.map((o) => o.id)).toEqual([lapsing.id])
      expect((await api().get("/offers/my?status=pending", { token: seller.token })).body.data.offers).toEqual([])

      const renewed = await m.offer(seller, posted.id, { price: 1400 })
      expect(renewed.status).toBe("pending")
      await server().runExpiry()
      expect((await requestOf(buyer.token, posted.id)).offer_count).toBe(2)
      expect((await offersOf(seller.token, posted.id)).map((o) => [o.id, o.status])).toEqual([
        [renewed.id, "pending"],
        [lapsing.id, "expired"]
      ])
      // The request's other offers are untouched and the renewed one can be accepted.
      expect((await m.accept(buyer, renewed.id)).offer_id).toBe(renewed.id)
    })
  })

  describe("a request's expiry", () => {
    it("is REQUEST_TTL_DAYS after creation, shown as expires_at", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      expect(new Date(posted.expires_at).getTime() - new Date(posted.created_at).getTime()).toBe(30 * DAY)
      expect(posted.extended_at).toBeNull()
      const detail = await requestOf(buyer.token, posted.id)
      expect(detail).toMatchObject({ status: "active", expires_at: posted.expires_at, extended_at: null })
    })

    it("lets only the buyer extend, once, by 30 days; closed and expired requests are refused with their own codes", async () => {
      const buyer = await m.user()
      const stranger = await m.user()
      const posted = await m.request(buyer)
      const closed = await m.request(buyer)
      m.expectStatus(await api().put(`/requests/${closed.id}/close`, { token: buyer.token }), 200, "close")

      expectError(await api().put(`/requests/${posted.id}/extend`, { token: stranger.token }), 403, "FORBIDDEN")
      expectError(await api().put(`/requests/${unknownId()}/extend`, { token: buyer.token }), 404, "NOT_FOUND")
      expectError(await api().put(`/requests/${posted.id}/extend`), 401, "UNAUTHORIZED")
      const extended = m.expectStatus(
        await api().put(`/requests/${posted.id}/extend`, { token: buyer.token }),
        200,
        "extend"
      ).body.data
      expect(extended).toEqual({
        id: posted.id,
        status: "active",
        expires_at: new Date(new Date(posted.expires_at).getTime() + 30 * DAY).toISOString(),
        extended_at: expect.any(String)
      })
      expect(await requestOf(buyer.token, posted.id)).toMatchObject({
        expires_at: extended.expires_at,
        extended_at: extended.extended_at
      })
      expectError(
        await api().put(`/requests/${posted.id}/extend`, { token: buyer.token }),
        422,
        "REQUEST_ALREADY_EXTENDED"
      )
      expectError(
        await api().put(`/requests/${closed.id}/extend`, { token: buyer.token }),
        422,
        "REQUEST_ALREADY_CLOSED"
      )
    })

    it("reminds the buyer a day before, then expires the request at once: no new offers, pending offers rejected, one push each", async () => {
      const buyer = await m.user("Buyer")
      const seller = await m.seller()
      const late = await m.seller()
      const posted = await m.request(buyer)
      const kept = await m.request(buyer)
      const made = await m.offer(seller, posted.id)
      await withDevice(buyer)

      server().clock.advance(29 * DAY + HOUR)
      await server().runExpiry()
      const reminder = await server().pushes.waitFor(
        (p) => p.userId === buyer.userId && p.type === "request_expiring" && p.data.request_id === posted.id
      )
      expect(reminder.title).toBe("ينتهي طلبك غداً")
      const buyerNow = await again(buyer)
      // The other request is extended, so it is not the one that expires below.
      m.expectStatus(await api().put(`/requests/${kept.id}/extend`, { token: buyerNow.token }), 200, "extend")

      server().clock.advance(DAY)
      const buyerLater = await again(buyer)
      const sellerLater = await again(seller)
      const lateLater = await again(late)
      expect((await requestOf(buyerLater.token, posted.id)).status).toBe("expired")
      expectError(
        await api().post("/offers", { token: lateLater.token, body: anOfferBody(posted.id) }),
        422,
        "REQUEST_NOT_ACTIVE"
      )
      // Its pending offer is rejected with it, whether the job wrote that down yet or not.
      expectError(await api().post(`/offers/${made.id}/accept`, { token: buyerLater.token }), 422, "OFFER_NOT_PENDING")
      expectError(await api().delete(`/offers/${made.id}`, { token: sellerLater.token }), 422, "OFFER_NOT_PENDING")
      expectError(await api().put(`/requests/${posted.id}/extend`, { token: buyerLater.token }), 422, "REQUEST_EXPIRED")
      expectError(await api().put(`/requests/${posted.id}/close`, { token: buyerLater.token }), 422, "REQUEST_EXPIRED")
      expect((await offersOf(sellerLater.token, posted.id)).map((o) => o.status)).toEqual(["rejected"])

      const expiredList = await api().get("/requests/my?status=expired", { token: buyerLater.token })
      expect(expiredList.body.data.requests.map((r) => r.id)).toEqual([posted.id])
      const activeList = await api().get("/requests/my?status=active", { token: buyerLater.token })
      expect(activeList.body.data.requests.map((r) => r.id)).toEqual([kept.id])
      const browse = await api().get("/requests?status=expired&per_page=50", { token: buyerLater.token })
      expect(browse.body.data.requests.map((r) => r.id)).toContain(posted.id)

      await server().runExpiry()
      const told = await server().pushes.waitFor(
        (p) => p.userId === buyer.userId && p.type === "request_expired" && p.data.request_id === posted.id
      )
      expect(told.body.length).toBeGreaterThan(0)
      await server().runExpiry()
      expect(pushesOf(server(), buyer.userId, "request_expiring", posted.id)).toHaveLength(1)
      expect(pushesOf(server(), buyer.userId, "request_expired", posted.id)).toHaveLength(1)
      expect(pushesOf(server(), buyer.userId, "request_expired", kept.id)).toHaveLength(0)
      // Written down by the job now, the same as the clock said before.
      expect((await requestOf(buyerLater.token, posted.id)).status).toBe("expired")
      expect((await offersOf(sellerLater.token, posted.id)).map((o) => o.status)).toEqual(["rejected"])
      expect((await requestOf(buyerLater.token, kept.id)).status).toBe("active")
    })

    it("words the pushes in the buyer's language", async () => {
      const buyer = await m.user("Buyer")
      m.expectStatus(await api().put("/users/me", { token: buyer.token, body: { language: "en" } }), 200, "lang")
      const posted = await m.request(buyer)
      await withDevice(buyer)
      server().clock.advance(30 * DAY + HOUR)
      await server().runExpiry()
      const told = await server().pushes.waitFor(
        (p) => p.userId === buyer.userId && p.type === "request_expired" && p.data.request_id === posted.id
      )
      expect(told).toMatchObject({ title: "Your request has expired" })
      // Expired without a reminder: the job found it past its expiry already.
      expect(pushesOf(server(), buyer.userId, "request_expiring", posted.id)).toHaveLength(0)
    })
  })
})
