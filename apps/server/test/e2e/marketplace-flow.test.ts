import { beforeAll, describe, expect, it } from "vitest"
import { ARABIC, ISO_UTC, Marketplace, marketplaceSettings, UUID } from "../support/fixtures.js"
import { backends, client, newPhone, type Response, signIn, useServer } from "../support/harness.js"

/*
 * The whole marketplace once, end to end, with every response checked field by field against the shapes
 * of service-spec.md ("Resources and their fields" and "Endpoints") and decisions.md.
 */

const uuid = expect.stringMatching(UUID)
const timestamp = expect.stringMatching(ISO_UTC)
const pagination = (total: number, perPage = 20, page = 1) => ({
  current_page: page,
  per_page: perPage,
  total,
  last_page: Math.max(1, Math.ceil(total / perPage))
})

/** The success envelope with the status; answers `data`. */
const ok = <Body extends { readonly success: unknown; readonly data: unknown; readonly message?: unknown }>(
  response: Response<Body>,
  status: number,
  what: string
): Body["data"] => {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(status)
  expect(response.body.success).toBe(true)
  expect(typeof response.body.data).toBe("object")
  if (response.body.message !== undefined) expect(typeof response.body.message).toBe("string")
  return response.body.data
}

/** Polls until `check` holds, for at most `ms` (pushes are delivered by a background dispatcher). */
const eventually = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

describe.each(backends)("marketplace flow on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone]))
  let m: Marketplace
  beforeAll(() => {
    m = new Marketplace(server(), client(server()), adminPhone)
  })

  it("sign in, apply, approve, request, offers, accept, deal, complete, rate, report, resolve", async () => {
    const api = m.api
    // Sign in
    const admin = await m.adminUser()
    expect(admin.user).toMatchObject({ is_admin: true, has_seller_profile: false })
    const buyer = await m.buyer("Sara")
    const seller = await m.buyer("Khalid")
    const rival = await m.buyer("Omar")
    expect(seller.user).toMatchObject({ is_admin: false, has_seller_profile: false, language: "ar" })
    for (const [user, token] of [
      [buyer, "buyer-device"],
      [seller, "seller-device"]
    ] as const) {
      ok(
        await api.post("/device-tokens", {
          token: user.token,
          body: { platform: "ios", push_token: `${token}-${backend}` }
        }),
        201,
        "POST /device-tokens"
      )
    }

    // Apply for a seller profile
    const application = ok(
      await api.post("/seller-profiles", {
        token: seller.token,
        body: {
          business_name: "Khalid Mobiles",
          location_district: "Al Malaz",
          location_city: "Riyadh",
          bio: "Used iPhones"
        }
      }),
      201,
      "POST /seller-profiles"
    )
    expect(application).toMatchObject({
      id: uuid,
      user_id: seller.userId,
      status: "pending",
      business_name: "Khalid Mobiles",
      location_district: "Al Malaz",
      created_at: timestamp
    })
    const rivalProfile = await m.apply(rival, { business_name: "Omar Store", location_district: "Al Olaya" })

    // Admin sees the pending applications with their users, and approves
    const pending = ok(
      await api.get("/admin/seller-profiles/pending", { token: admin.token }),
      200,
      "GET /admin/seller-profiles/pending"
    )
    expect(pending.pagination).toEqual(pagination(2))
    expect(pending.profiles.map((p) => p.id)).toEqual([rivalProfile.id, application.id])
    expect(pending.profiles[1]).toMatchObject({
      id: application.id,
      status: "pending",
      business_name: "Khalid Mobiles",
      location_district: "Al Malaz",
      created_at: timestamp,
      user: { id: seller.userId, phone_number: seller.phone, name: "Khalid" }
    })
    const approved = ok(
      await api.put(`/admin/seller-profiles/${application.id}/approve`, { token: admin.token }),
      200,
      "PUT /admin/seller-profiles/{id}/approve"
    )
    expect(approved).toMatchObject({ id: application.id, status: "approved", approved_at: timestamp })
    await m.approve(rivalProfile.id)
    expect(
      ok(await api.get("/admin/seller-profiles/pending", { token: admin.token }), 200, "pending").profiles
    ).toEqual([])

    // The public profile, without a token
    const publicProfile = ok(await api.get(`/seller-profiles/${application.id}`), 200, "GET /seller-profiles/{id}")
    expect(publicProfile).toEqual({
      id: application.id,
      business_name: "Khalid Mobiles",
      location_district: "Al Malaz",
      bio: "Used iPhones",
      rating_avg: 0,
      rating_count: 0,
      created_at: application.created_at,
      trust: {
        median_first_offer_minutes: null,
        median_reply_minutes: null,
        completion_rate: null,
        cancellation_rate: null,
        rating_avg: null,
        rating_count: 0,
        completed_deals: 0,
        member_since: timestamp
      }
    })
    const me = ok(await api.get("/users/me", { token: seller.token }), 200, "GET /users/me")
    expect(me.seller_profile).toEqual({
      id: application.id,
      status: "approved",
      business_name: "Khalid Mobiles",
      location_district: "Al Malaz",
      rating_avg: 0,
      rating_count: 0,
      rejection_reason: null
    })
    expect((await signIn(server(), api, seller.phone)).user.has_seller_profile).toBe(true)

    // A buy request
    const created = ok(
      await api.post("/requests", {
        token: buyer.token,
        body: {
          category: "phone",
          product_brand: "Apple",
          product_model: "iPhone 14",
          condition_pref: "used",
          budget_min: 2000,
          budget_max: 2750.5,
          location_district: "Al Nakheel",
          location_city: "Riyadh",
          notes: "128 GB"
        }
      }),
      201,
      "POST /requests"
    )
    expect(created).toMatchObject({
      id: uuid,
      buyer_id: buyer.userId,
      category: "phone",
      product_brand: "Apple",
      product_model: "iPhone 14",
      condition_pref: "used",
      budget_min: 2000,
      budget_max: 2750.5,
      location_district: "Al Nakheel",
      location_city: "Riyadh",
      notes: "128 GB",
      status: "active",
      offer_count: 0,
      created_at: timestamp,
      closed_at: null,
      expires_at: timestamp,
      extended_at: null
    })

    const browse = ok(await api.get("/requests", { token: seller.token }), 200, "GET /requests")
    expect(browse.pagination).toEqual(pagination(1))
    expect(browse.requests).toHaveLength(1)
    expect(browse.requests[0]).toMatchObject({
      id: created.id,
      category: "phone",
      product_brand: "Apple",
      product_model: "iPhone 14",
      condition_pref: "used",
      budget_min: 2000,
      budget_max: 2750.5,
      location_district: "Al Nakheel",
      status: "active",
      offer_count: 0,
      created_at: created.created_at
    })
    const own = ok(await api.get("/requests/my", { token: buyer.token }), 200, "GET /requests/my")
    expect(own.pagination).toEqual(pagination(1))
    expect(own.requests[0]).toMatchObject({ id: created.id, status: "active", offer_count: 0 })

    const detail = ok(await api.get(`/requests/${created.id}`, { token: seller.token }), 200, "GET /requests/{id}")
    const { buyer_id: _, ...withoutBuyerId } = created
    expect(detail).toMatchObject({ ...withoutBuyerId, buyer: { id: buyer.userId, name: "Sara" } })
    expect(detail).not.toHaveProperty("buyer_id")

    // Offers
    const offer = ok(
      await api.post("/offers", {
        token: seller.token,
        body: {
          request_id: created.id,
          price: 2500,
          availability: "Today after 5 pm",
          condition_notes: "Battery 91%",
          warranty_notes: "1 month"
        }
      }),
      201,
      "POST /offers"
    )
    expect(offer).toEqual({
      id: uuid,
      request_id: created.id,
      seller_id: seller.userId,
      price: 2500,
      revision: 1,
      availability: "Today after 5 pm",
      condition_notes: "Battery 91%",
      warranty_notes: "1 month",
      status: "pending",
      created_at: timestamp,
      valid_until: null,
      counter: null,
      photos: []
    })
    const rivalResponse = await api.post("/offers", {
      token: rival.token,
      body: { request_id: created.id, price: 2999.99, availability: "Tomorrow" }
    })
    const rivalOffer = ok(rivalResponse, 201, "POST /offers above the budget")
    expect(rivalOffer).toMatchObject({ price: 2999.99, status: "pending", seller_id: rival.userId })
    expect(typeof rivalResponse.body.message).toBe("string")

    const offers = ok(
      await api.get(`/requests/${created.id}/offers`, { token: buyer.token }),
      200,
      "GET /requests/{id}/offers"
    )
    expect(offers.offers.map((o) => o.id)).toEqual([rivalOffer.id, offer.id])
    expect(offers.offers[1]).toMatchObject({
      id: offer.id,
      seller: { id: seller.userId, name: "Khalid", rating_avg: 0, rating_count: 0, location_district: "Al Malaz" },
      price: 2500,
      availability: "Today after 5 pm",
      condition_notes: "Battery 91%",
      warranty_notes: "1 month",
      status: "pending",
      created_at: offer.created_at
    })
    expect((await m.requestDetail(buyer, created.id)).offer_count).toBe(2)

    const myOffers = ok(await api.get("/offers/my", { token: seller.token }), 200, "GET /offers/my")
    expect(myOffers.pagination).toEqual(pagination(1))
    expect(myOffers.offers[0]).toMatchObject({
      id: offer.id,
      request: { id: created.id, product_brand: "Apple", product_model: "iPhone 14", budget_max: 2750.5 },
      price: 2500,
      status: "pending",
      created_at: offer.created_at
    })

    // Accept
    const accepted = ok(
      await api.post(`/offers/${offer.id}/accept`, { token: buyer.token }),
      200,
      "POST /offers/{id}/accept"
    )
    expect(accepted.deal).toEqual({
      id: uuid,
      request_id: created.id,
      offer_id: offer.id,
      buyer_id: buyer.userId,
      seller_id: seller.userId,
      status: "accepted",
      created_at: timestamp
    })
    const dealId = accepted.deal.id
    expect(await m.requestDetail(buyer, created.id)).toMatchObject({
      status: "closed",
      closed_at: timestamp,
      offer_count: 2
    })
    expect(Object.fromEntries((await m.offersOf(buyer, created.id)).map((o) => [o.id, o.status]))).toEqual({
      [offer.id]: "accepted",
      [rivalOffer.id]: "rejected"
    })

    // The deal, from both sides
    const buyerDeals = ok(await api.get("/deals/my?role=buyer", { token: buyer.token }), 200, "GET /deals/my")
    expect(buyerDeals.pagination).toEqual(pagination(1))
    expect(buyerDeals.deals[0]).toMatchObject({
      id: dealId,
      status: "accepted",
      created_at: accepted.deal.created_at,
      request: { product_brand: "Apple", product_model: "iPhone 14" },
      offer: { price: 2500 },
      buyer: { id: buyer.userId, name: "Sara" },
      seller: { id: seller.userId, name: "Khalid", rating_avg: 0 }
    })
    const sellerDeals = ok(await api.get("/deals/my?role=seller", { token: seller.token }), 200, "GET /deals/my")
    expect(sellerDeals.deals.map((d) => d.id)).toEqual([dealId])

    const deal = ok(await api.get(`/deals/${dealId}`, { token: seller.token }), 200, "GET /deals/{id}")
    expect(deal).toMatchObject({
      id: dealId,
      status: "accepted",
      conversation_id: uuid,
      created_at: accepted.deal.created_at,
      completed_at: null,
      cancelled_at: null,
      request: { product_brand: "Apple", product_model: "iPhone 14" },
      offer: { price: 2500 },
      buyer: { id: buyer.userId, name: "Sara" },
      seller: { id: seller.userId, name: "Khalid" }
    })
    // The deal's conversation is the one created with its offer.
    expect((await m.conversationOf(buyer, offer.id)).id).toBe(deal.conversation_id)

    // Complete
    const completed = ok(
      await api.put(`/deals/${dealId}/complete`, { token: buyer.token }),
      200,
      "PUT /deals/{id}/complete"
    )
    expect(completed).toMatchObject({ id: dealId, status: "completed", completed_at: timestamp })
    expect(await m.dealDetail(buyer, dealId)).toMatchObject({
      status: "completed",
      completed_at: completed.completed_at,
      cancelled_at: null
    })

    // Rate
    const rating = ok(
      await api.post("/ratings", {
        token: buyer.token,
        body: { deal_id: dealId, rating: 4, review_text: "Quick and honest" }
      }),
      201,
      "POST /ratings"
    )
    expect(rating).toEqual({
      id: uuid,
      deal_id: dealId,
      seller_id: seller.userId,
      rating: 4,
      review_text: "Quick and honest",
      created_at: timestamp
    })
    expect(ok(await api.get(`/seller-profiles/${application.id}`), 200, "public profile")).toMatchObject({
      rating_avg: 4,
      rating_count: 1
    })

    // Report
    const report = ok(
      await api.post("/reports", {
        token: buyer.token,
        body: { reported_user_id: seller.userId, deal_id: dealId, reason: "rude", description: "Shouted at me" }
      }),
      201,
      "POST /reports"
    )
    expect(report).toMatchObject({ id: uuid, status: "pending", created_at: timestamp })

    const reports = ok(await api.get("/admin/reports", { token: admin.token }), 200, "GET /admin/reports")
    expect(reports.pagination).toEqual(pagination(1))
    expect(reports.reports[0]).toMatchObject({
      id: report.id,
      reporter: { id: buyer.userId },
      reported_user: { id: seller.userId },
      deal: { id: dealId },
      reason: "rude",
      description: "Shouted at me",
      status: "pending",
      created_at: report.created_at
    })
    expect(reports.reports[0]).not.toHaveProperty("reported_user_id")

    // Resolve
    const resolved = ok(
      await api.put(`/admin/reports/${report.id}/resolve`, {
        token: admin.token,
        body: { action: "warn", notes: "Warned by phone" }
      }),
      200,
      "PUT /admin/reports/{id}/resolve"
    )
    expect(resolved).toEqual({
      id: report.id,
      status: "resolved",
      action: "warn",
      notes: "Warned by phone",
      resolved_at: timestamp
    })
    const resolvedList = ok(
      await api.get("/admin/reports?status=resolved", { token: admin.token }),
      200,
      "GET /admin/reports"
    )
    expect(resolvedList.reports.map((r) => [r.id, r.status])).toEqual([[report.id, "resolved"]])
    expect(
      ok(await api.get("/admin/reports?status=pending", { token: admin.token }), 200, "pending reports").reports
    ).toEqual([])
    expect((await m.me(seller)).seller_profile?.status).toBe("approved")

    // Pushes (service-spec "Push notifications", decisions.md section 10), in the recipient's language (ar)
    const pushes = server().pushes
    const typesOf = (userId: string) =>
      pushes
        .to(userId)
        .map((p) => p.type)
        .sort()
    const buyerExpects = ["offer_accepted", "offer_created", "offer_created", "rating_prompt"]
    await eventually(() => typesOf(buyer.userId).length >= 4 && typesOf(seller.userId).length >= 1)
    expect(typesOf(buyer.userId)).toEqual(buyerExpects)
    expect(typesOf(seller.userId)).toEqual(["offer_accepted"])
    const toBuyer = pushes.to(buyer.userId)
    expect(
      toBuyer
        .filter((p) => p.type === "offer_created")
        .map((p) => p.data.offer_id)
        .sort()
    ).toEqual([offer.id, rivalOffer.id].sort())
    expect(toBuyer.find((p) => p.type === "offer_created")!.data.request_id).toBe(created.id)
    expect(toBuyer.find((p) => p.type === "offer_accepted")!.data.deal_id).toBe(dealId)
    expect(toBuyer.find((p) => p.type === "rating_prompt")!.data.deal_id).toBe(dealId)
    expect(pushes.to(seller.userId)[0]!.data.deal_id).toBe(dealId)
    for (const push of [...toBuyer, ...pushes.to(seller.userId)]) {
      expect(push.title).toMatch(ARABIC)
      expect(push.body).toMatch(ARABIC)
      expect(push.platform).toBe("ios")
    }
  })
})
