import { describe, expect, it } from "vitest"
import { anOfferBody, expectError, market, marketSettings } from "../support/fixtures.js"
import type { SignedIn } from "../support/harness.js"
import { backends, type Query, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"

const MINUTE = 60_000

/** The trust object of a seller with no data at all: null figures, zero counts. */
const noData = {
  median_first_offer_minutes: null,
  median_reply_minutes: null,
  completion_rate: null,
  cancellation_rate: null,
  rating_avg: null,
  rating_count: 0,
  completed_deals: 0
}

/** Seller trust figures (docs/DECISIONS.md, "Seller trust score"): kept by every write, shown on profile and offers. */
describe.each(backends)("seller trust on %s", (backend) => {
  const { server, databaseUrl } = useServerWithDatabase(backend, { settings: marketSettings })
  const m = market(server)
  type Seller = SignedIn & { profileId: string }

  const trustOf = async (seller: Seller) => {
    const profile = m.expectStatus(await m.api().get(`/seller-profiles/${seller.profileId}`), 200, "profile")
    return profile.body.data.trust
  }
  const figuresOf = async (seller: Seller) => {
    const { member_since: _memberSince, ...figures } = await trustOf(seller)
    return figures
  }
  const conversationOf = async (party: SignedIn, offerId: string): Promise<string> => {
    const list = await m.api().get("/conversations/my?per_page=50", { token: party.token })
    const found = list.body.data.conversations.find((c) => c.offer_id === offerId)
    if (!found) throw new Error(`no conversation for offer ${offerId}`)
    return found.id
  }
  const say = async (sender: SignedIn, conversationId: string, text: string) =>
    m.expectStatus(
      await m.api().post(`/conversations/${conversationId}/messages`, {
        token: sender.token,
        body: { message_text: text }
      }),
      201,
      "message"
    )
  const complete = (buyer: SignedIn, dealId: string) => m.api().put(`/deals/${dealId}/complete`, { token: buyer.token })
  const cancel = (buyer: SignedIn, dealId: string) =>
    m.api().put(`/deals/${dealId}/cancel`, { token: buyer.token, body: { reason: "changed my mind" } })
  const rate = (buyer: SignedIn, dealId: string, rating: number) =>
    m.api().post("/ratings", { token: buyer.token, body: { deal_id: dealId, rating } })
  /** An offer of `seller` on a new request of `buyer`, accepted: a deal and its conversation. */
  const dealWith = async (buyer: SignedIn, seller: Seller, price = 1500) => {
    const posted = await m.request(buyer)
    const offer = await m.offer(seller, posted.id, { price })
    const deal = await m.accept(buyer, offer.id)
    return { offer, deal, conversationId: await conversationOf(buyer, offer.id) }
  }

  it("computes every figure of a scripted history, updated by each write as it happens", async () => {
    const clock = server().clock
    const seller = await m.seller("Trusted")
    const buyer1 = await m.user("Buyer one")
    const buyer2 = await m.user("Buyer two")
    const me = (await m.api().get("/users/me", { token: seller.token })).body.data

    // A fresh seller: nothing to measure, so null figures and zero counts (never a fake 0 rate or average).
    expect(await trustOf(seller)).toEqual({ ...noData, member_since: me.created_at })

    // Offer made, accepted: deal 1. accepted 1, completed 0, cancelled 0 -> completion 0/1 = 0, cancellation 0/1 = 0.
    const d1 = await dealWith(buyer1, seller)
    expect(await figuresOf(seller)).toEqual({ ...noData, completion_rate: 0, cancellation_rate: 0 })

    // Deal 1 completed: completion 1/1 = 1.
    m.expectStatus(await complete(buyer1, d1.deal.id), 200, "complete d1")
    expect(await figuresOf(seller)).toEqual({ ...noData, completion_rate: 1, cancellation_rate: 0, completed_deals: 1 })

    // Deal 1 rated 5: average 5 over 1 rating.
    m.expectStatus(await rate(buyer1, d1.deal.id, 5), 201, "rate d1")
    expect(await figuresOf(seller)).toMatchObject({ rating_avg: 5, rating_count: 1 })

    // Chat of deal 1: the buyer writes, twice; 10 minutes after the FIRST the seller answers -> reply sample 10.
    // The seller's later messages are no new sample.
    await say(buyer1, d1.conversationId, "Is it still boxed?")
    clock.advance(4 * MINUTE)
    await say(buyer1, d1.conversationId, "Hello?")
    clock.advance(6 * MINUTE)
    await say(seller, d1.conversationId, "Yes, sealed")
    expect(await figuresOf(seller)).toMatchObject({ median_reply_minutes: 10 })
    clock.advance(100 * MINUTE)
    await say(seller, d1.conversationId, "Anything else?")
    expect(await figuresOf(seller)).toMatchObject({ median_reply_minutes: 10 })

    // Deal 2 (buyer 2): the seller writes first (not a reply), the buyer 5 minutes later, the seller 30 after
    // that -> sample 30. Samples {10, 30}: median (10 + 30) / 2 = 20.
    const d2 = await dealWith(buyer2, seller)
    await say(seller, d2.conversationId, "Thanks for accepting")
    clock.advance(5 * MINUTE)
    await say(buyer2, d2.conversationId, "When can we meet?")
    clock.advance(30 * MINUTE)
    await say(seller, d2.conversationId, "Tonight")
    expect(await figuresOf(seller)).toMatchObject({ median_reply_minutes: 20 })

    // Deal 2 cancelled: accepted 2, completed 1, cancelled 1 -> completion 1/2 = 0.5, cancellation 1/2 = 0.5.
    m.expectStatus(await cancel(buyer2, d2.deal.id), 200, "cancel d2")
    expect(await figuresOf(seller)).toMatchObject({ completion_rate: 0.5, cancellation_rate: 0.5, completed_deals: 1 })

    // Deal 3 (buyer 1), asked and answered 60 minutes later -> samples {10, 30, 60}: median 30.
    const d3 = await dealWith(buyer1, seller)
    await say(buyer1, d3.conversationId, "Colour?")
    clock.advance(60 * MINUTE)
    await say(seller, d3.conversationId, "Blue")
    expect(await figuresOf(seller)).toMatchObject({ median_reply_minutes: 30 })

    // Deal 3 completed and rated 2: accepted 3, completed 2, cancelled 1 -> completion 2/3 = 0.67,
    // cancellation 1/3 = 0.33; ratings {5, 2}: average 7 / 2 = 3.5.
    m.expectStatus(await complete(buyer1, d3.deal.id), 200, "complete d3")
    m.expectStatus(await rate(buyer1, d3.deal.id, 2), 201, "rate d3")

    // Deal 4 (buyer 2) stays accepted, the buyer asks and gets no answer (no sample): accepted 4, completed 2,
    // cancelled 1 -> completion 2/4 = 0.5, cancellation 1/4 = 0.25.
    const d4 = await dealWith(buyer2, seller)
    await say(buyer2, d4.conversationId, "Still there?")
    clock.advance(500 * MINUTE)

    // A pending offer of the seller in a conversation where they answer 20 minutes after the buyer's question:
    // samples {10, 20, 30, 60}: median (20 + 30) / 2 = 25.
    const pending = await m.offer(seller, (await m.request(buyer1)).id)
    const pendingChat = await conversationOf(buyer1, pending.id)
    await say(buyer1, pendingChat, "Can you do 1400?")
    clock.advance(20 * MINUTE)
    await say(seller, pendingChat, "1450")

    expect(await figuresOf(seller)).toEqual({
      median_first_offer_minutes: null,
      median_reply_minutes: 25,
      completion_rate: 0.5,
      cancellation_rate: 0.25,
      rating_avg: 3.5,
      rating_count: 2,
      completed_deals: 2
    })
  })

  /**
   * The alerts feature records each (request, seller) it alerted in request_matches; its matching job is not
   * what is tested here, so the rows are written directly, on PostgreSQL where the test reaches the database.
   */
  const matched = (requestIds: ReadonlyArray<string>, seller: Seller) =>
    runSql(databaseUrl()!, (sql) => {
      const at = new Date(server().clock.unsafeCurrentTimeMillis())
      return sql`INSERT INTO request_matches ${sql.insert(
        requestIds.map((request_id) => ({ request_id, seller_user_id: seller.userId, matched_at: at }))
      )}`
    })

  it.runIf(backend === "postgres")(
    "measures the minutes from each alert to the seller's first offer on that request",
    async () => {
      const clock = server().clock
      const seller = await m.seller("Alerted")
      const buyer = await m.user("Asker")
      const [r1, r2, r3, r4] = [
        await m.request(buyer),
        await m.request(buyer),
        await m.request(buyer),
        await m.request(buyer)
      ]
      await matched([r1.id, r2.id, r3.id], seller)
      await matched([r1.id, r2.id], await m.seller("Racer"))
      expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: null })

      // 15 minutes after the alerts, an offer on r1: samples {15}.
      clock.advance(15 * MINUTE)
      await m.offer(seller, r1.id)
      expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: 15 })

      // 30 more, on r2: 15 + 30 = 45 -> samples {15, 45}: median (15 + 45) / 2 = 30.
      clock.advance(30 * MINUTE)
      const first = await m.offer(seller, r2.id)
      expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: 30 })

      // r4 was never alerted to this seller: no sample. Withdrawing r2's offer and offering again 100 minutes
      // later is not a first offer: no sample.
      await m.offer(seller, r4.id)
      m.expectStatus(await m.api().delete(`/offers/${first.id}`, { token: seller.token }), 200, "withdraw")
      clock.advance(100 * MINUTE)
      await m.offer(seller, r2.id)
      expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: 30 })

      // 15 more, on r3: 15 + 30 + 100 + 15 = 160 -> samples {15, 45, 160}: median 45.
      clock.advance(15 * MINUTE)
      await m.offer(seller, r3.id)
      expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: 45 })
    }
  )

  it.runIf(backend === "postgres")("counts two first offers of one seller written at once", async () => {
    const clock = server().clock
    const seller = await m.seller("Quick")
    const buyer = await m.user("Asker")
    const [r1, r2] = [await m.request(buyer), await m.request(buyer)]
    await matched([r1.id], seller)
    clock.advance(20 * MINUTE)
    await matched([r2.id], seller)
    clock.advance(10 * MINUTE)
    // Samples {30, 10} written at once: median 20 (either alone would leave 30 or 10).
    const made = await Promise.all(
      [r1, r2].map((r) => m.api().post("/offers", { token: seller.token, body: anOfferBody(r.id) }))
    )
    expect(made.map((r) => r.status)).toEqual([201, 201])
    expect(await figuresOf(seller)).toMatchObject({ median_first_offer_minutes: 20 })
  })

  it("shows the same trust on the seller's profile and beside the seller on each offer, for buyer and seller", async () => {
    const seller = await m.seller("Shown")
    const other = await m.seller("Other")
    const buyer = await m.user("Buyer")
    const made = await dealWith(buyer, seller)
    m.expectStatus(await complete(buyer, made.deal.id), 200, "complete")
    m.expectStatus(await rate(buyer, made.deal.id, 4), 201, "rate")

    const posted = await m.request(buyer)
    await m.offer(seller, posted.id)
    await m.offer(other, posted.id)
    const asBuyer = (await m.api().get(`/requests/${posted.id}/offers`, { token: buyer.token })).body.data.offers
    const asSeller = (await m.api().get(`/requests/${posted.id}/offers`, { token: seller.token })).body.data.offers
    const profileTrust = await trustOf(seller)
    expect(profileTrust).toMatchObject({ completion_rate: 1, rating_avg: 4, rating_count: 1, completed_deals: 1 })
    expect(asBuyer.find((o) => o.seller.id === seller.userId)!.seller.trust).toEqual(profileTrust)
    expect(asBuyer.find((o) => o.seller.id === other.userId)!.seller.trust).toEqual(await trustOf(other))
    expect(asSeller.map((o) => o.seller.trust)).toEqual([profileTrust])
  })

  describe("GET /requests/{id}/offers?sort=", () => {
    /**
     * Four sellers offer on one request, a minute apart (A first, D last):
     *   A 900, rating 5, reply 10 min | B 500, rating 3, reply 60 min | C 700, no rating, no reply |
     *   D 500, rating 3, no reply.
     */
    const scene = async () => {
      const clock = server().clock
      const history = await m.user("History buyer")
      const withHistory = async (name: string, rating: number | null, replyMinutes: number | null) => {
        const seller = await m.seller(name)
        if (rating === null && replyMinutes === null) return seller
        const made = await dealWith(history, seller)
        if (replyMinutes !== null) {
          await say(history, made.conversationId, "Hi")
          clock.advance(replyMinutes * MINUTE)
          await say(seller, made.conversationId, "Hello")
        }
        if (rating !== null) {
          m.expectStatus(await complete(history, made.deal.id), 200, "complete")
          m.expectStatus(await rate(history, made.deal.id, rating), 201, "rate")
        }
        return seller
      }
      const a = await withHistory("A", 5, 10)
      const b = await withHistory("B", 3, 60)
      const c = await withHistory("C", null, null)
      const d = await withHistory("D", 3, null)
      const buyer = await m.user("Buyer")
      const posted = await m.request(buyer)
      const names = new Map<string, string>()
      for (const [seller, price, name] of [
        [a, 900, "A"],
        [b, 500, "B"],
        [c, 700, "C"],
        [d, 500, "D"]
      ] as const) {
        clock.advance(MINUTE)
        const offer = await m.offer(seller, posted.id, { price })
        names.set(offer.id, name)
      }
      const order = async (query: Query) => {
        const listed = m.expectStatus(
          await m.api().get(`/requests/${posted.id}/offers${query}`, { token: buyer.token }),
          200,
          `list ${query}`
        )
        return listed.body.data.offers.map((o) => names.get(o.id))
      }
      return { order, buyer, posted }
    }

    it("orders by price, rating and response time; ties newest first; sellers without the figure last", async () => {
      const { order } = await scene()
      // The default stays the spec's: newest first.
      expect(await order("")).toEqual(["D", "C", "B", "A"])
      expect(await order("?sort=newest")).toEqual(["D", "C", "B", "A"])
      // Cheapest first; B and D both 500: the newer (D) first.
      expect(await order("?sort=price")).toEqual(["D", "B", "C", "A"])
      // Best average first; B and D both 3: D (newer) first; C has no rating: last.
      expect(await order("?sort=rating")).toEqual(["A", "D", "B", "C"])
      // Fastest median reply first; C and D have none: last, newer first.
      expect(await order("?sort=response_time")).toEqual(["A", "B", "D", "C"])
    })

    it("answers an unknown sort with 400 VALIDATION_ERROR naming sort", async () => {
      const buyer = await m.user()
      const posted = await m.request(buyer)
      for (const bad of ["cheapest", "", "PRICE", "price,rating"]) {
        const error = expectError(
          await m.api().get(`/requests/${posted.id}/offers?sort=${encodeURIComponent(bad)}`, {
            token: buyer.token,
            headers: { "accept-language": "en" }
          }),
          400,
          "VALIDATION_ERROR"
        )
        expect(JSON.stringify(error.details)).toContain("sort")
      }
    })
  })

  it("loses no update when completions, cancels, ratings and replies of one seller race", async () => {
    const clock = server().clock
    const seller = await m.seller("Raced")
    const buyer = await m.user("Racer")
    const deals = []
    for (let i = 0; i < 6; i++) deals.push(await dealWith(buyer, seller))
    // Two replies asked 20 minutes apart and answered at once: samples {30, 10}, median 20.
    await say(buyer, deals[4]!.conversationId, "first question")
    clock.advance(20 * MINUTE)
    await say(buyer, deals[5]!.conversationId, "second question")
    clock.advance(10 * MINUTE)
    const [c0, c1, c2, x3, s4, s5] = await Promise.all([
      complete(buyer, deals[0]!.deal.id),
      complete(buyer, deals[1]!.deal.id),
      complete(buyer, deals[2]!.deal.id),
      cancel(buyer, deals[3]!.deal.id),
      m.api().post(`/conversations/${deals[4]!.conversationId}/messages`, {
        token: seller.token,
        body: { message_text: "answer one" }
      }),
      m.api().post(`/conversations/${deals[5]!.conversationId}/messages`, {
        token: seller.token,
        body: { message_text: "answer two" }
      })
    ])
    expect([c0, c1, c2, x3].map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect([s4, s5].map((r) => r.status)).toEqual([201, 201])
    const ratings = await Promise.all([rate(buyer, deals[0]!.deal.id, 5), rate(buyer, deals[1]!.deal.id, 2)])
    expect(ratings.map((r) => r.status)).toEqual([201, 201])
    // accepted 6, completed 3, cancelled 1 -> 3/6 = 0.5 and 1/6 = 0.17; ratings {5, 2}: 3.5.
    expect(await figuresOf(seller)).toEqual({
      median_first_offer_minutes: null,
      median_reply_minutes: 20,
      completion_rate: 0.5,
      cancellation_rate: 0.17,
      rating_avg: 3.5,
      rating_count: 2,
      completed_deals: 3
    })
  })
})
