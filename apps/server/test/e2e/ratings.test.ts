import type { RequestBody } from "@talab/client-sdk/types"
import { describe, expect, it } from "vitest"
import { expectError, ISO_UTC, market, unknownId, useMarketServer } from "../support/fixtures.js"
import type { SignedIn } from "../support/harness.js"
import { backends } from "../support/harness.js"

describe.each(backends)("ratings on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  const sellerFigures = async (seller: { profileId: string }) => {
    const { rating_avg, rating_count } = (await m.api().get(`/seller-profiles/${seller.profileId}`)).body.data
    return { rating_avg, rating_count }
  }

  /** A completed deal of `seller` with `buyer`. */
  const completedDealBetween = async (buyer: SignedIn, seller: SignedIn) => {
    const posted = await m.request(buyer)
    const offer = await m.offer(seller, posted.id)
    const deal = await m.accept(buyer, offer.id)
    m.expectStatus(await m.api().put(`/deals/${deal.id}/complete`, { token: buyer.token }), 200, "complete")
    return deal
  }

  const rate = (
    buyer: SignedIn,
    dealId: string,
    rating: number,
    extra: Omit<RequestBody<"/ratings", "post">, "deal_id" | "rating"> = {}
  ) => m.api().post("/ratings", { token: buyer.token, body: { deal_id: dealId, rating, ...extra } })
  /** A rating the contract refuses (not a number, or none): sent untyped. */
  const rateBadly = (buyer: SignedIn, dealId: string, rating: unknown) =>
    m.api().raw.post("/ratings", { token: buyer.token, body: { deal_id: dealId, rating } })

  describe("POST /ratings", () => {
    it("lets the buyer of a completed deal rate its seller: 201, and the seller's figures change", async () => {
      const made = await m.completedDeal()
      const response = await rate(made.buyer, made.deal.id, 4, { review_text: "Quick and honest" })
      expect(response.status).toBe(201)
      expect(response.body.data).toEqual({
        id: expect.any(String),
        deal_id: made.deal.id,
        seller_id: made.seller.userId,
        rating: 4,
        review_text: "Quick and honest",
        created_at: expect.stringMatching(ISO_UTC)
      })
      expect(await sellerFigures(made.seller)).toEqual({ rating_avg: 4, rating_count: 1 })
      const me = await m.api().get("/users/me", { token: made.seller.token })
      expect(me.body.data.seller_profile).toMatchObject({ rating_avg: 4, rating_count: 1 })
      const deals = await m.api().get("/deals/my", { token: made.buyer.token })
      expect(deals.body.data.deals[0].seller.rating_avg).toBe(4)
    })

    it("keeps the seller's average to 2 decimals of the exact mean, never drifting (1,1,1,1,1,2,1 gives 1.14)", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const deals = []
      for (let i = 0; i < 7; i++) deals.push(await completedDealBetween(buyer, seller))
      const ratings = [1, 1, 1, 1, 1, 2, 1]
      for (const [i, value] of ratings.entries()) {
        expect((await rate(buyer, deals[i]!.id, value)).status).toBe(201)
      }
      // Folding the rounded average (the old addRating) would give 1.15 here.
      expect(await sellerFigures(seller)).toEqual({ rating_avg: 1.14, rating_count: 7 })
    })

    it("counts simultaneous ratings of the seller's different deals exactly", async () => {
      const buyer = await m.user()
      const seller = await m.seller()
      const deals = []
      for (let i = 0; i < 4; i++) deals.push(await completedDealBetween(buyer, seller))
      const values = [5, 4, 4, 2]
      const responses = await Promise.all(deals.map((deal, i) => rate(buyer, deal.id, values[i])))
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201])
      expect(await sellerFigures(seller)).toEqual({ rating_avg: 3.75, rating_count: 4 })
    })

    it("rates a deal once: a second rating is 400 VALIDATION_ERROR on deal_id, and the figures stay", async () => {
      const made = await m.completedDeal()
      expect((await rate(made.buyer, made.deal.id, 5)).status).toBe(201)
      const error = expectError(
        await m.api().post("/ratings", {
          token: made.buyer.token,
          body: { deal_id: made.deal.id, rating: 1 },
          headers: { "accept-language": "en" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      expect(error.details).toEqual({ deal_id: ["This deal has already been rated"] })
      expect(await sellerFigures(made.seller)).toEqual({ rating_avg: 5, rating_count: 1 })
    })

    it("of simultaneous ratings of one deal exactly one is stored", async () => {
      const made = await m.completedDeal()
      const responses = await Promise.all([5, 4, 3, 2, 1].map((value) => rate(made.buyer, made.deal.id, value)))
      expect(responses.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400])
      const stored = responses.find((r) => r.status === 201)!.body.data.rating
      expect(await sellerFigures(made.seller)).toEqual({ rating_avg: stored, rating_count: 1 })
    })

    it("needs a completed deal: an accepted or cancelled one is 400 VALIDATION_ERROR on deal_id", async () => {
      const accepted = await m.deal()
      const error = expectError(await rate(accepted.buyer, accepted.deal.id, 5), 400, "VALIDATION_ERROR")
      expect(Object.keys(error.details)).toEqual(["deal_id"])
      const cancelled = await m.deal()
      await m.api().put(`/deals/${cancelled.deal.id}/cancel`, { token: cancelled.buyer.token, body: { reason: "no" } })
      expectError(await rate(cancelled.buyer, cancelled.deal.id, 5), 400, "VALIDATION_ERROR")
      expect(await sellerFigures(accepted.seller)).toEqual({ rating_avg: 0, rating_count: 0 })
    })

    it.each([
      ["0", 0],
      ["6", 6],
      ["4.5", 4.5],
      ["a string", "5"],
      ["null", null],
      ["missing", undefined]
    ])("refuses a rating of %s with 400 VALIDATION_ERROR on rating", async (_, value) => {
      const made = await m.completedDeal()
      const error = expectError(await rateBadly(made.buyer, made.deal.id, value), 400, "VALIDATION_ERROR")
      expect(Object.keys(error.details)).toEqual(["rating"])
      expect(await sellerFigures(made.seller)).toEqual({ rating_avg: 0, rating_count: 0 })
    })

    it("refuses a bad deal_id or review_text with 400; a bad rating outranks an unknown deal", async () => {
      const made = await m.completedDeal()
      let error = expectError(await rate(made.buyer, "deal-1", 5), 400, "VALIDATION_ERROR")
      expect(Object.keys(error.details)).toEqual(["deal_id"])
      error = expectError(
        await rate(made.buyer, made.deal.id, 5, { review_text: "x".repeat(2001) }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toEqual(["review_text"])
      expectError(await rate(made.buyer, unknownId(), 9), 400, "VALIDATION_ERROR")
    })

    it("is 403 for the seller and strangers, 404 for an unknown deal, 401 without a token", async () => {
      const made = await m.completedDeal()
      const stranger = await m.user()
      expectError(await rate(made.seller, made.deal.id, 5), 403, "FORBIDDEN")
      expectError(await rate(stranger, made.deal.id, 5), 403, "FORBIDDEN")
      expectError(await rate(made.buyer, unknownId(), 5), 404, "NOT_FOUND")
      expectError(await m.api().post("/ratings", { body: { deal_id: made.deal.id, rating: 5 } }), 401, "UNAUTHORIZED")
      expect(await sellerFigures(made.seller)).toEqual({ rating_avg: 0, rating_count: 0 })
      expect((await rate(made.buyer, made.deal.id, 3)).status).toBe(201)
    })
  })
})
