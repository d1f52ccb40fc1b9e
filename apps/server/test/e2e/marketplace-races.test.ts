import { beforeAll, describe, expect, it } from "vitest"
import { Marketplace, marketplaceSettings, offerBody, profileBody } from "../support/fixtures.js"
import { client, newPhone, type Response, type SignedIn, useServer } from "../support/harness.js"

/*
 * Races settled by the database (decisions.md section 3: "of any number of simultaneous accepts on one
 * request exactly one succeeds; the rest get 422"; one rating per deal; one profile per user; one pending
 * offer per seller per request). PostgreSQL only: PGlite is one connection, so nothing really overlaps there.
 * Every race is run several rounds; the final state is read back through the API.
 */

const ROUNDS = 4
const RACERS = 8

const statuses = (responses: ReadonlyArray<Response>) => responses.map((r) => r.status)
const codes = (responses: ReadonlyArray<Response>) =>
  responses.filter((r) => r.status >= 400).map((r) => r.body?.error?.code)
const count = (values: ReadonlyArray<number>, value: number) => values.filter((v) => v === value).length
const show = (responses: ReadonlyArray<Response>) =>
  JSON.stringify(responses.map((r) => [r.status, r.body?.error?.code]))

describe("marketplace races on postgres", () => {
  const adminPhone = newPhone()
  const server = useServer("postgres", marketplaceSettings([adminPhone]))
  let m: Marketplace
  let buyer: SignedIn
  let sellers: ReadonlyArray<SignedIn & { profileId: string }>
  beforeAll(async () => {
    m = new Marketplace(server(), client(server()), adminPhone)
    buyer = await m.buyer("Racing Buyer")
    sellers = await Promise.all(Array.from({ length: RACERS }, (_, i) => m.approvedSeller(`Racing Seller ${i}`)))
  }, 120_000)

  const dealTotal = async (user: SignedIn, role: "buyer" | "seller") =>
    (await m.api.get(`/deals/my?role=${role}&per_page=1`, { token: user.token })).body.data.pagination.total

  it(`${RACERS} simultaneous accepts of different offers on one request: exactly one deal`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dealsBefore = await dealTotal(buyer, "buyer")
      const request = await m.createRequest(buyer)
      const offers = await Promise.all(sellers.map((s) => m.offer(s, request.id)))

      const responses = await Promise.all(
        offers.map((o) => m.api.post(`/offers/${o.id}/accept`, { token: buyer.token }))
      )

      expect(count(statuses(responses), 200), show(responses)).toBe(1)
      expect(count(statuses(responses), 422), show(responses)).toBe(RACERS - 1)
      const winner = offers[statuses(responses).indexOf(200)]!
      const deal = responses.find((r) => r.status === 200)!.body.data.deal
      expect(deal.offer_id).toBe(winner.id)
      expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore + 1)
      const final = await m.offersOf(buyer, request.id)
      expect(final.filter((o) => o.status === "accepted").map((o) => o.id)).toEqual([winner.id])
      expect(final.filter((o) => o.status === "rejected").length).toBe(RACERS - 1)
      expect((await m.requestDetail(buyer, request.id)).status).toBe("closed")
      expect((await m.dealDetail(buyer, deal.id)).status).toBe("accepted")
    }
  })

  it(`${RACERS} simultaneous accepts of the same offer: exactly one deal`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dealsBefore = await dealTotal(buyer, "buyer")
      const sellerDealsBefore = await dealTotal(sellers[0]!, "seller")
      const { request, offer } = await m.pendingOffer(buyer, sellers[0]!)
      const other = await m.offer(sellers[1]!, request.id)

      const responses = await Promise.all(
        Array.from({ length: RACERS }, () => m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token }))
      )

      expect(count(statuses(responses), 200), show(responses)).toBe(1)
      expect(count(statuses(responses), 422), show(responses)).toBe(RACERS - 1)
      expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore + 1)
      expect(await dealTotal(sellers[0]!, "seller")).toBe(sellerDealsBefore + 1)
      const final = Object.fromEntries((await m.offersOf(buyer, request.id)).map((o) => [o.id, o.status]))
      expect(final).toEqual({ [offer.id]: "accepted", [other.id]: "rejected" })
    }
  })

  it(`${RACERS} simultaneous ratings of one deal: exactly one is stored`, async () => {
    const seller = sellers[2]!
    for (let round = 0; round < ROUNDS; round++) {
      const { deal } = await m.completedDeal(buyer, seller)
      const before = (await m.me(seller)).seller_profile!.rating_count

      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          m.api.post("/ratings", { token: buyer.token, body: { deal_id: deal.id, rating: (i % 5) + 1 } })
        )
      )

      expect(count(statuses(responses), 201), show(responses)).toBe(1)
      // decisions.md section 6: "already rated" is a 400 VALIDATION_ERROR.
      expect(count(statuses(responses), 400), show(responses)).toBe(RACERS - 1)
      expect(new Set(codes(responses))).toEqual(new Set(["VALIDATION_ERROR"]))
      expect((await m.me(seller)).seller_profile!.rating_count).toBe(before + 1)
    }
  })

  it(`${RACERS} simultaneous seller applications of one user: exactly one profile`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const applicant = await m.buyer(`Applicant ${round}`)

      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          m.api.post("/seller-profiles", { token: applicant.token, body: profileBody({ business_name: `Shop ${i}` }) })
        )
      )

      expect(count(statuses(responses), 201), show(responses)).toBe(1)
      expect(count(statuses(responses), 422), show(responses)).toBe(RACERS - 1)
      expect(new Set(codes(responses))).toEqual(new Set(["SELLER_PROFILE_EXISTS"]))
      const created = responses.find((r) => r.status === 201)!.body.data
      expect((await m.me(applicant)).seller_profile).toMatchObject({
        id: created.id,
        business_name: created.business_name
      })
      expect((await m.pendingProfiles()).filter((p) => p.user?.id === applicant.userId).length).toBe(1)
    }
  })

  it(`${RACERS} simultaneous offers of one seller on one request: exactly one pending offer`, async () => {
    const seller = sellers[3]!
    for (let round = 0; round < ROUNDS; round++) {
      const request = await m.createRequest(buyer)

      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          m.api.post("/offers", { token: seller.token, body: offerBody(request.id, { price: 3000 + i }) })
        )
      )

      expect(count(statuses(responses), 201), show(responses)).toBe(1)
      expect(count(statuses(responses), 422), show(responses)).toBe(RACERS - 1)
      expect(new Set(codes(responses))).toEqual(new Set(["DUPLICATE_PENDING_OFFER"]))
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(1)
      expect((await m.offersOf(buyer, request.id)).length).toBe(1)
    }
  })

  it("withdraw and accept of the same offer at once: one wins and the state matches it", async () => {
    const seller = sellers[4]!
    const winners: Array<string> = []
    for (let round = 0; round < ROUNDS * 2; round++) {
      const dealsBefore = await dealTotal(buyer, "buyer")
      const { request, offer } = await m.pendingOffer(buyer, seller)

      const [withdraw, accept] = await Promise.all([
        m.api.delete(`/offers/${offer.id}`, { token: seller.token }),
        m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token })
      ])

      const both = [withdraw!, accept!]
      expect(count(statuses(both), 200), show(both)).toBe(1)
      expect(count(statuses(both), 422), show(both)).toBe(1)
      const detail = await m.requestDetail(buyer, request.id)
      const status = (await m.offersOf(seller, request.id)).find((o) => o.id === offer.id)?.status
      if (accept!.status === 200) {
        winners.push("accept")
        expect(withdraw!.body.error.code).toBe("OFFER_ALREADY_ACCEPTED")
        expect(status).toBe("accepted")
        expect(detail).toMatchObject({ status: "closed", offer_count: 1 })
        expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore + 1)
      } else {
        winners.push("withdraw")
        expect(accept!.body.error.code).toBe("OFFER_NOT_PENDING")
        expect(status).toBe("withdrawn")
        expect(detail).toMatchObject({ status: "active", offer_count: 0 })
        expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore)
      }
    }
    expect(winners.length).toBe(ROUNDS * 2)
  })

  it("close and accept of one request at once: one wins and the state matches it", async () => {
    const seller = sellers[5]!
    for (let round = 0; round < ROUNDS; round++) {
      const dealsBefore = await dealTotal(buyer, "buyer")
      const { request, offer } = await m.pendingOffer(buyer, seller)

      const [close, accept] = await Promise.all([
        m.api.put(`/requests/${request.id}/close`, { token: buyer.token }),
        m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token })
      ])

      const both = [close!, accept!]
      expect(count(statuses(both), 200), show(both)).toBe(1)
      expect(count(statuses(both), 422), show(both)).toBe(1)
      const status = (await m.offersOf(buyer, request.id))[0].status
      expect((await m.requestDetail(buyer, request.id)).status).toBe("closed")
      if (accept!.status === 200) {
        expect(close!.body.error.code).toBe("REQUEST_ALREADY_CLOSED")
        expect(status).toBe("accepted")
        expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore + 1)
      } else {
        expect(status).toBe("rejected")
        expect(await dealTotal(buyer, "buyer")).toBe(dealsBefore)
      }
    }
  })

  it("offers racing a close: no offer is left pending on the closed request", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const request = await m.createRequest(buyer)
      const offering = sellers.slice(1)
      const [close, ...offers] = await Promise.all([
        m.api.put(`/requests/${request.id}/close`, { token: buyer.token }),
        ...offering.map((s) => m.api.post("/offers", { token: s.token, body: offerBody(request.id) }))
      ])
      expect(close!.status, JSON.stringify(close!.body)).toBe(200)
      for (const offer of offers) {
        expect([201, 422], JSON.stringify(offer.body)).toContain(offer.status)
        if (offer.status === 422) expect(offer.body.error.code).toBe("REQUEST_NOT_ACTIVE")
      }
      const final = await m.offersOf(buyer, request.id)
      expect(final.length).toBe(count(statuses(offers), 201))
      expect(
        final.filter((o) => o.status === "pending"),
        "pending offers on a closed request"
      ).toEqual([])
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(final.length)
    }
  })

  it("offers racing an accept: once the deal exists no other offer is pending", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { request, offer } = await m.pendingOffer(buyer, sellers[0]!)
      const [accept, ...offers] = await Promise.all([
        m.api.post(`/offers/${offer.id}/accept`, { token: buyer.token }),
        ...sellers.slice(1).map((s) => m.api.post("/offers", { token: s.token, body: offerBody(request.id) }))
      ])
      expect(accept!.status, JSON.stringify(accept!.body)).toBe(200)
      for (const late of offers) expect([201, 422], JSON.stringify(late.body)).toContain(late.status)
      const final = await m.offersOf(buyer, request.id)
      expect(final.filter((o) => o.status === "accepted").map((o) => o.id)).toEqual([offer.id])
      expect(
        final.filter((o) => o.status === "pending"),
        "pending offers beside an accepted one"
      ).toEqual([])
    }
  })

  it("offer_count stays exact under simultaneous offers and withdrawals", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const request = await m.createRequest(buyer)
      const early = await Promise.all(sellers.slice(0, 4).map((s) => m.offer(s, request.id)))
      const responses = await Promise.all([
        ...early.map((o, i) => m.api.delete(`/offers/${o.id}`, { token: sellers[i]!.token })),
        ...sellers.slice(4).map((s) => m.api.post("/offers", { token: s.token, body: offerBody(request.id) }))
      ])
      expect(statuses(responses), show(responses)).toEqual([200, 200, 200, 200, 201, 201, 201, 201])
      const visible = await m.offersOf(buyer, request.id)
      expect(visible.length).toBe(4)
      expect((await m.requestDetail(buyer, request.id)).offer_count).toBe(4)
    }
  })

  it("rating_avg and rating_count stay exact under simultaneous ratings of different deals", async () => {
    for (let round = 0; round < 2; round++) {
      const seller = await m.approvedSeller(`Rated Seller ${round}`)
      const deals = []
      for (let i = 0; i < RACERS; i++) deals.push((await m.completedDeal(buyer, seller)).deal)
      const stars = deals.map((_, i) => (i % 5) + 1)
      const responses = await Promise.all(
        deals.map((deal, i) =>
          m.api.post("/ratings", { token: buyer.token, body: { deal_id: deal.id, rating: stars[i] } })
        )
      )
      expect(statuses(responses), show(responses)).toEqual(Array(RACERS).fill(201))
      const average = Math.round((stars.reduce((a, b) => a + b, 0) / RACERS) * 100) / 100
      expect((await m.me(seller)).seller_profile).toMatchObject({ rating_count: RACERS, rating_avg: average })
    }
  })

  it("complete and cancel of one deal at once: exactly one applies", async () => {
    const seller = sellers[6]!
    for (let round = 0; round < ROUNDS; round++) {
      const { deal } = await m.deal(buyer, seller)
      const [complete, cancel] = await Promise.all([
        m.api.put(`/deals/${deal.id}/complete`, { token: buyer.token }),
        m.api.put(`/deals/${deal.id}/cancel`, { token: buyer.token, body: { reason: "Race" } })
      ])
      const both = [complete!, cancel!]
      expect(count(statuses(both), 200), show(both)).toBe(1)
      expect(codes(both)).toEqual(["DEAL_NOT_ACTIVE"])
      const detail = await m.dealDetail(buyer, deal.id)
      if (complete!.status === 200) expect(detail).toMatchObject({ status: "completed", cancelled_at: null })
      else expect(detail).toMatchObject({ status: "cancelled", completed_at: null })
    }
  })

  it(`${RACERS} simultaneous resolutions of one report, and approve against reject: exactly one applies`, async () => {
    const admin = await m.adminUser()
    const actions = ["dismiss", "warn", "suspend_seller"] as const
    for (let round = 0; round < ROUNDS; round++) {
      const target = await m.approvedSeller(`Reported ${round}`)
      const report = await m.report(buyer, target.userId)
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          m.api.put(`/admin/reports/${report.id}/resolve`, { token: admin.token, body: { action: actions[i % 3] } })
        )
      )
      expect(count(statuses(responses), 200), show(responses)).toBe(1)
      expect(new Set(codes(responses))).toEqual(new Set(["REPORT_NOT_PENDING"]))
      const winner = responses.find((r) => r.status === 200)!.body.data
      expect(await m.adminReport(report.id)).toMatchObject({ status: winner.status })
      expect((await m.me(target)).seller_profile?.status).toBe(
        winner.action === "suspend_seller" ? "suspended" : "approved"
      )

      const applicant = await m.pendingSeller(`Contested ${round}`)
      const decisions = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          m.api.put(`/admin/seller-profiles/${applicant.profileId}/${i % 2 === 0 ? "approve" : "reject"}`, {
            token: admin.token
          })
        )
      )
      expect(count(statuses(decisions), 200), show(decisions)).toBe(1)
      expect(new Set(codes(decisions))).toEqual(new Set(["SELLER_PROFILE_NOT_PENDING"]))
      expect((await m.me(applicant)).seller_profile?.status).toBe(
        (decisions.find((r) => r.status === 200) as Response).body.data.status
      )
    }
  })
})
