import type { SqlClient } from "@effect/sql"
import type { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { anOfferBody, expectError, market, marketSettings } from "../support/fixtures.js"
import { useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"

interface OutboxRow {
  readonly type: string
  readonly payload: Record<string, unknown>
  readonly created_at: Date
}

/**
 * The domain events each transition writes to the outbox, read straight from the server's PostgreSQL
 * database (the embedded backend has no handle outside the process). Events are written in the
 * transaction of their change, so a refused transition leaves none.
 */
describe("domain events in the outbox (PostgreSQL)", () => {
  const { server, databaseUrl } = useServerWithDatabase("postgres", { settings: marketSettings })
  const m = market(server)

  const query = <A>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
    runSql(databaseUrl()!, run)

  /** Events whose payload mentions an id, oldest first. */
  const eventsAbout = (id: string) =>
    query<OutboxRow>(
      (sql) =>
        sql<OutboxRow>`SELECT type, payload, created_at FROM outbox_events
          WHERE payload::text LIKE ${`%${id}%`} ORDER BY created_at, type`
    )
  const typesAbout = async (id: string) => (await eventsAbout(id)).map((e) => e.type)
  const outboxSize = async () =>
    Number((await query<{ n: number }>((sql) => sql`SELECT COUNT(*) AS n FROM outbox_events`))[0]!.n)

  it("seller applications: SellerProfileApplied, SellerProfileApproved, SellerProfileRejected", async () => {
    const approved = await m.seller()
    expect(await eventsAbout(approved.profileId)).toEqual([
      expect.objectContaining({
        type: "SellerProfileApplied",
        payload: { profileId: approved.profileId, userId: approved.userId }
      }),
      expect.objectContaining({
        type: "SellerProfileApproved",
        payload: { profileId: approved.profileId, userId: approved.userId }
      })
    ])
    const rejected = await m.applicant()
    const { token } = await m.admin()
    await m.api().put(`/admin/seller-profiles/${rejected.profileId}/reject`, { token })
    expect(await typesAbout(rejected.profileId)).toEqual(["SellerProfileApplied", "SellerProfileRejected"])
  })

  it("a request and an offer: RequestCreated, then OfferCreated with the conversation opened with it", async () => {
    const buyer = await m.user()
    const seller = await m.seller()
    const posted = await m.request(buyer)
    expect(await eventsAbout(posted.id)).toEqual([
      expect.objectContaining({ type: "RequestCreated", payload: { requestId: posted.id, buyerId: buyer.userId } })
    ])
    const offer = await m.offer(seller, posted.id)
    const [created] = await eventsAbout(offer.id)
    expect(created).toMatchObject({
      type: "OfferCreated",
      payload: { offerId: offer.id, requestId: posted.id, sellerId: seller.userId, buyerId: buyer.userId }
    })
    const conversations = await query<{ id: string; buyer_id: string; seller_id: string }>(
      (sql) => sql`SELECT id, buyer_id, seller_id FROM conversations WHERE offer_id = ${offer.id}`
    )
    expect(conversations).toEqual([
      { id: created!.payload.conversationId, buyer_id: buyer.userId, seller_id: seller.userId }
    ])
  })

  it("the accept: OfferAccepted, DealCreated, RequestClosed and OfferRejected, written together", async () => {
    const buyer = await m.user()
    const winner = await m.seller()
    const loser = await m.seller()
    const posted = await m.request(buyer)
    const chosen = await m.offer(winner, posted.id)
    const other = await m.offer(loser, posted.id)
    const deal = await m.accept(buyer, chosen.id)
    const events = (await eventsAbout(posted.id)).filter(
      (e) => e.type !== "RequestCreated" && e.type !== "OfferCreated"
    )
    expect(events.map((e) => e.type).sort()).toEqual(["DealCreated", "OfferAccepted", "OfferRejected", "RequestClosed"])
    expect(new Set(events.map((e) => e.created_at.getTime())).size).toBe(1)
    expect(events.find((e) => e.type === "OfferAccepted")!.payload).toEqual({
      offerId: chosen.id,
      requestId: posted.id,
      sellerId: winner.userId,
      buyerId: buyer.userId,
      dealId: deal.id
    })
    expect(events.find((e) => e.type === "RequestClosed")!.payload).toEqual({
      requestId: posted.id,
      buyerId: buyer.userId,
      reason: "accepted"
    })
    expect(events.find((e) => e.type === "OfferRejected")!.payload).toMatchObject({ offerId: other.id })

    const before = await outboxSize()
    expectError(await m.api().post(`/offers/${other.id}/accept`, { token: buyer.token }), 422, "OFFER_NOT_PENDING")
    expectError(
      await m.api().post("/offers", { token: loser.token, body: anOfferBody(posted.id) }),
      422,
      "REQUEST_NOT_ACTIVE"
    )
    expect(await outboxSize()).toBe(before)
  })

  it("withdraw and close: OfferWithdrawn; RequestClosed (owner) with the pending offers' OfferRejected", async () => {
    const buyer = await m.user()
    const a = await m.seller()
    const b = await m.seller()
    const posted = await m.request(buyer)
    const withdrawn = await m.offer(a, posted.id)
    const pending = await m.offer(b, posted.id)
    await m.api().delete(`/offers/${withdrawn.id}`, { token: a.token })
    expect(await typesAbout(withdrawn.id)).toEqual(["OfferCreated", "OfferWithdrawn"])
    await m.api().put(`/requests/${posted.id}/close`, { token: buyer.token })
    expect(await typesAbout(pending.id)).toEqual(["OfferCreated", "OfferRejected"])
    const closed = (await eventsAbout(posted.id)).find((e) => e.type === "RequestClosed")
    expect(closed!.payload).toEqual({ requestId: posted.id, buyerId: buyer.userId, reason: "owner" })
  })

  it("deals, ratings and reports: DealCompleted, RatingSubmitted, DealCancelled, ReportFiled, ReportResolved, SellerSuspended", async () => {
    const done = await m.completedDeal()
    const rated = await m
      .api()
      .post("/ratings", { token: done.buyer.token, body: { deal_id: done.deal.id, rating: 4 } })
    const dealEvents = await eventsAbout(done.deal.id)
    expect(dealEvents.map((e) => e.type)).toEqual(expect.arrayContaining(["DealCompleted", "RatingSubmitted"]))
    expect(dealEvents.find((e) => e.type === "RatingSubmitted")!.payload).toEqual({
      ratingId: rated.body.data.id,
      dealId: done.deal.id,
      sellerId: done.seller.userId,
      rating: 4
    })

    const cancelled = await m.deal()
    await m
      .api()
      .put(`/deals/${cancelled.deal.id}/cancel`, { token: cancelled.buyer.token, body: { reason: "Changed plans" } })
    const cancel = (await eventsAbout(cancelled.deal.id)).find((e) => e.type === "DealCancelled")
    expect(cancel!.payload).toMatchObject({ dealId: cancelled.deal.id, reason: "Changed plans" })

    const filed = await m.api().post("/reports", {
      token: done.buyer.token,
      body: { reported_user_id: done.seller.userId, deal_id: done.deal.id, reason: "scam" }
    })
    const reportId = filed.body.data.id
    const { token } = await m.admin()
    await m.api().put(`/admin/reports/${reportId}/resolve`, { token, body: { action: "suspend_seller" } })
    expect(await typesAbout(reportId)).toEqual(["ReportFiled", "ReportResolved"])
    expect(await typesAbout(done.seller.profileId)).toContain("SellerSuspended")
  })
})
