import { describe, expect, it } from "vitest"
import {
  ADMIN_PHONE,
  anOfferBody,
  aProfileBody,
  aRequestBody,
  expectError,
  useMarketServer
} from "../support/fixtures.js"
import { bothBackends, client, signInOverHttp } from "../support/harness.js"

/**
 * One marketplace story end to end, every step through the public API: sellers apply and are approved,
 * a buyer posts a request, two sellers offer, the buyer accepts one (the other is rejected, the request
 * closed), completes the deal, rates the seller and reports them, and the admin resolves the report.
 */
describe.each(bothBackends)("the whole marketplace flow on %s", (backend) => {
  const server = useMarketServer(backend)

  it("runs from sign-in to the admin's resolution of a report", async () => {
    const api = client(server())
    const ok = async <Body>(promise: Promise<{ status: number; body: Body }>, status = 200) => {
      const response = await promise
      expect(response.status, JSON.stringify(response.body)).toBe(status)
      return response.body
    }

    // Sign in: an admin, a buyer and two sellers-to-be.
    const admin = await signInOverHttp(server(), api, ADMIN_PHONE)
    expect(admin.user.is_admin).toBe(true)
    const buyer = await signInOverHttp(server(), api)
    const alice = await signInOverHttp(server(), api)
    const bob = await signInOverHttp(server(), api)
    expect(buyer.user.is_admin).toBe(false)
    await ok(api.put("/users/me", { token: buyer.token, body: { name: "Buyer" } }))
    await ok(api.put("/users/me", { token: alice.token, body: { name: "Alice" } }))
    await ok(api.put("/users/me", { token: bob.token, body: { name: "Bob" } }))

    // Both apply; the admin sees the applications and approves them.
    const aliceProfile = (
      await ok(
        api.post("/seller-profiles", { token: alice.token, body: aProfileBody({ business_name: "Alice Mobiles" }) }),
        201
      )
    ).data
    server().clock.advance(1000)
    const bobProfile = (
      await ok(
        api.post("/seller-profiles", { token: bob.token, body: aProfileBody({ business_name: "Bob Accessories" }) }),
        201
      )
    ).data
    expect(aliceProfile.status).toBe("pending")
    const pending = (await ok(api.get("/admin/seller-profiles/pending", { token: admin.token }))).data.profiles
    expect(pending.map((p) => p.id)).toEqual([bobProfile.id, aliceProfile.id])
    expect(pending[1].user).toEqual({ id: alice.userId, phone_number: alice.phone, name: "Alice" })
    await ok(api.put(`/admin/seller-profiles/${aliceProfile.id}/approve`, { token: admin.token }))
    await ok(api.put(`/admin/seller-profiles/${bobProfile.id}/approve`, { token: admin.token }))
    expect((await ok(api.get("/admin/seller-profiles/pending", { token: admin.token }))).data.profiles).toEqual([])

    // The buyer posts a request; it is listed for everybody.
    const request = (await ok(api.post("/requests", { token: buyer.token, body: aRequestBody() }), 201)).data
    const browsed = (await ok(api.get("/requests?category=phone&location_city=Riyadh", { token: alice.token }))).data
    expect(browsed.requests.map((r) => r.id)).toEqual([request.id])

    // Two sellers offer; Bob's price is over the budget, which only earns him a warning.
    const aliceOffer = (
      await ok(api.post("/offers", { token: alice.token, body: anOfferBody(request.id, { price: 1800 }) }), 201)
    ).data
    server().clock.advance(1000)
    const bobOfferResponse = await ok(
      api.post("/offers", { token: bob.token, body: anOfferBody(request.id, { price: 2100 }) }),
      201
    )
    const bobOffer = bobOfferResponse.data
    expect(bobOfferResponse.message).toEqual(expect.any(String))
    const offers = (await ok(api.get(`/requests/${request.id}/offers`, { token: buyer.token }))).data.offers
    expect(offers.map((o) => [o.id, o.seller.name, o.status])).toEqual([
      [bobOffer.id, "Bob", "pending"],
      [aliceOffer.id, "Alice", "pending"]
    ])
    expect((await ok(api.get(`/requests/${request.id}`, { token: buyer.token }))).data.offer_count).toBe(2)

    // Each offer opened a conversation between the buyer and its seller.
    const buyerConversations = (await ok(api.get("/conversations/my", { token: buyer.token }))).data.conversations
    expect(buyerConversations.map((c) => c.offer_id).sort()).toEqual([aliceOffer.id, bobOffer.id].sort())
    const aliceConversation = buyerConversations.find((c) => c.offer_id === aliceOffer.id)!
    expect(aliceConversation.other_party.id).toBe(alice.userId)

    // The buyer accepts Alice's offer: a deal; Bob's offer is rejected; the request is closed.
    const deal = (await ok(api.post(`/offers/${aliceOffer.id}/accept`, { token: buyer.token }))).data.deal
    expect(deal).toMatchObject({
      request_id: request.id,
      offer_id: aliceOffer.id,
      buyer_id: buyer.userId,
      seller_id: alice.userId,
      status: "accepted"
    })
    const bobsView = (await ok(api.get("/offers/my", { token: bob.token }))).data.offers
    expect(bobsView.map((o) => [o.id, o.status])).toEqual([[bobOffer.id, "rejected"]])
    const closed = (await ok(api.get(`/requests/${request.id}`, { token: buyer.token }))).data
    expect(closed.status).toBe("closed")
    expect(closed.closed_at).not.toBeNull()
    expectError(await api.post(`/offers/${bobOffer.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")

    // Both parties see the deal, tied to the offer's conversation; Bob does not.
    const detail = (await ok(api.get(`/deals/${deal.id}`, { token: alice.token }))).data
    expect(detail.conversation_id).toBe(aliceConversation.id)
    expect(detail.seller).toMatchObject({ id: alice.userId, name: "Alice" })
    expectError(await api.get(`/deals/${deal.id}`, { token: bob.token }), 403, "FORBIDDEN")

    // The buyer completes the deal and rates Alice.
    const completed = (await ok(api.put(`/deals/${deal.id}/complete`, { token: buyer.token }))).data
    expect(completed.status).toBe("completed")
    const rating = (
      await ok(
        api.post("/ratings", { token: buyer.token, body: { deal_id: deal.id, rating: 5, review_text: "Great" } }),
        201
      )
    ).data
    expect(rating).toMatchObject({ deal_id: deal.id, seller_id: alice.userId, rating: 5 })
    const alicePublic = (await ok(api.get(`/seller-profiles/${aliceProfile.id}`))).data
    expect(alicePublic).toMatchObject({ business_name: "Alice Mobiles", rating_avg: 5, rating_count: 1 })

    // The buyer reports Alice about the deal; the admin suspends her.
    const report = (
      await ok(
        api.post("/reports", {
          token: buyer.token,
          body: { reported_user_id: alice.userId, deal_id: deal.id, reason: "fake_offer" }
        }),
        201
      )
    ).data
    expect(report.status).toBe("pending")
    const reports = (await ok(api.get("/admin/reports?status=pending", { token: admin.token }))).data.reports
    expect(reports.map((r) => r.id)).toEqual([report.id])
    expect(reports[0]).toMatchObject({
      reporter: { id: buyer.userId, name: "Buyer" },
      reported_user: { id: alice.userId, name: "Alice" },
      deal: { id: deal.id, status: "completed" }
    })
    const resolved = (
      await ok(
        api.put(`/admin/reports/${report.id}/resolve`, {
          token: admin.token,
          body: { action: "suspend_seller", notes: "Fake listing" }
        })
      )
    ).data
    expect(resolved).toMatchObject({
      id: report.id,
      status: "resolved",
      action: "suspend_seller",
      notes: "Fake listing"
    })

    // Alice is suspended: hidden from the public and unable to offer; Bob still can.
    expectError(await api.get(`/seller-profiles/${aliceProfile.id}`), 404, "NOT_FOUND")
    const next = (await ok(api.post("/requests", { token: buyer.token, body: aRequestBody() }), 201)).data
    expectError(
      await api.post("/offers", { token: alice.token, body: anOfferBody(next.id) }),
      403,
      "SELLER_NOT_APPROVED"
    )
    await ok(api.post("/offers", { token: bob.token, body: anOfferBody(next.id) }), 201)
    expect((await ok(api.get("/admin/reports?status=pending", { token: admin.token }))).data.reports).toEqual([])
  })
})
