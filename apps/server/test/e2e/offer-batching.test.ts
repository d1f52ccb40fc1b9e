import { describe, expect, it } from "vitest"
import { Marketplace, marketplaceSettings, offerBody } from "../support/fixtures.js"
import { client, newPhone, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { expectGatheredWithoutFallback, refuseMarkedRows, withSlowMarkedRows } from "../support/refused-rows.js"
import { useInstanceBeside } from "../support/two-instances.js"

/**
 * Offers made at the same moment are stored in one transaction (offers/Batches.ts), on PostgreSQL: each seller
 * still gets their own offer or their own error, every request's offer count is its pending offers, each offer
 * has its conversation, its history and its event, and an offer the database refuses fails alone. Rows of one
 * transaction share their `xmin`, which is how the tests see that offers were stored together.
 */
describe("offers stored in batches on postgres", { timeout: 120_000 }, () => {
  const adminPhone = newPhone()
  const suite = useServerWithDatabase("postgres", marketplaceSettings([adminPhone]))
  const market = () => new Marketplace(suite.server(), client(suite.server()), adminPhone)
  const sql = <A>(statement: Parameters<typeof runSql<A>>[1]) => runSql(suite.databaseUrl()!, statement)

  refuseMarkedRows(() => suite.databaseUrl()!, "offers", "availability")

  // An instance writes one batch of a kind at a time: batches that overlap are another instance's.
  const beside = useInstanceBeside(() => suite.databaseUrl()!, marketplaceSettings([adminPhone]))

  const propose = (
    seller: SignedIn,
    requestId: string,
    overrides: Parameters<typeof offerBody>[1] = {},
    server = suite.server()
  ) => client(server).raw.post("/offers", { token: seller.token, body: offerBody(requestId, overrides) })
  const offersOf = (requestIds: ReadonlyArray<string>) =>
    sql(
      (s) =>
        s<{
          id: string
          request: string
          seller: string
          tx: string
          conversations: number
          history: number
          events: number
        }>`
        SELECT o.id, o.request_id AS request, o.seller_id AS seller, o.xmin::text AS tx,
          (SELECT count(*)::int FROM conversations c WHERE c.offer_id = o.id) AS conversations,
          (SELECT count(*)::int FROM offer_events h WHERE h.offer_id = o.id AND h.type = 'created') AS history,
          (SELECT count(*)::int FROM outbox_events e
           WHERE e.type = 'OfferCreated' AND e.payload->>'offerId' = o.id::text) AS events
        FROM offers o WHERE o.request_id IN ${s.in(requestIds)}`
    )
  const countsOf = (requestIds: ReadonlyArray<string>) =>
    sql(
      (s) =>
        s<{ id: string; offer_count: number }>`SELECT id, offer_count FROM buy_requests WHERE id IN ${s.in(requestIds)}`
    )

  it("stores offers made at once together: each its own, with conversation, history and event; counts exact", async () => {
    const m = market()
    const buyers = await Promise.all(Array.from({ length: 3 }, (_, k) => m.buyer(`Buyer ${k}`)))
    const requests = await Promise.all(buyers.map((buyer) => m.createRequest(buyer)))
    const sellers = await Promise.all(Array.from({ length: 6 }, (_, k) => m.approvedSeller(`Shop ${k}`)))
    // Every seller on every request, all at once: 18 offers, 6 on each request.
    const proposals = sellers.flatMap((seller) => requests.map((request) => ({ seller, request })))
    const answers = await Promise.all(proposals.map(({ request, seller }) => propose(seller, request.id)))
    expect(answers.map((a) => a.status)).toEqual(Array(18).fill(201))
    for (const [k, answer] of answers.entries()) {
      expect(answer.body.data).toMatchObject({
        request_id: proposals[k]!.request.id,
        seller_id: proposals[k]!.seller.userId,
        status: "pending",
        photos: []
      })
    }
    const rows = await offersOf(requests.map((r) => r.id))
    expect(rows).toHaveLength(18)
    for (const row of rows) expect([row.conversations, row.history, row.events]).toEqual([1, 1, 1])
    expect((await countsOf(requests.map((r) => r.id))).map((r) => r.offer_count)).toEqual([6, 6, 6])
    // Fewer transactions than offers: some were stored together.
    expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(18)
  })

  it("an offer refused by a rule gets its own error; the others made with it are stored and counted", async () => {
    const m = market()
    const buyer = await m.buyer("Owner")
    const request = await m.createRequest(buyer)
    const sellers = await Promise.all(Array.from({ length: 4 }, (_, k) => m.approvedSeller(`Fine ${k}`)))
    const pending = await m.pendingSeller("Not yet")
    const answers = await Promise.all([
      propose(sellers[0]!, request.id),
      propose(pending, request.id),
      propose(sellers[1]!, request.id),
      propose(buyer, request.id),
      propose(sellers[2]!, crypto.randomUUID()),
      propose(sellers[3]!, request.id, { valid_until: new Date(Date.now() + 60_000).toISOString() }),
      propose(sellers[2]!, request.id)
    ])
    expect(answers.map((a) => a.status)).toEqual([201, 403, 201, 403, 404, 400, 201])
    expect(answers[5]!.body.error.code).toBe("VALIDATION_ERROR")
    expect((await offersOf([request.id])).map((row) => row.seller).sort()).toEqual(
      [sellers[0]!.userId, sellers[1]!.userId, sellers[2]!.userId].sort()
    )
    expect((await countsOf([request.id]))[0]!.offer_count).toBe(3)
  })

  it("a seller offering twice at once on one request gets one offer and one duplicate refusal", async () => {
    const m = market()
    const buyer = await m.buyer("Owner")
    const request = await m.createRequest(buyer)
    const seller = await m.approvedSeller("Eager")
    const others = await Promise.all(Array.from({ length: 3 }, (_, k) => m.approvedSeller(`Calm ${k}`)))
    const answers = await Promise.all([
      propose(seller, request.id),
      ...others.map((other) => propose(other, request.id)),
      propose(seller, request.id, { price: 3900 })
    ])
    const mine = [answers[0]!, answers[4]!].map((a) => a.status).sort()
    expect(mine).toEqual([201, 422])
    expect(answers.slice(1, 4).map((a) => a.status)).toEqual([201, 201, 201])
    expect(await offersOf([request.id])).toHaveLength(4)
    expect((await countsOf([request.id]))[0]!.offer_count).toBe(4)
  })

  it("an offer that lapsed is expired with the batch that offers on its request, freeing its seller to offer again", async () => {
    const m = market()
    const buyer = await m.buyer("Owner")
    const request = await m.createRequest(buyer)
    const [again, ...others] = await Promise.all(Array.from({ length: 4 }, (_, k) => m.approvedSeller(`Shop ${k}`)))
    const lapsed = await m.offer(again!, request.id)
    await sql((s) => s`UPDATE offers SET valid_until = now() - interval '1 minute' WHERE id = ${lapsed.id}`)
    const answers = await Promise.all([again!, ...others].map((seller) => propose(seller, request.id)))
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201])
    const statuses = await sql(
      (s) => s<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM offers WHERE request_id = ${request.id} GROUP BY status ORDER BY status`
    )
    expect(statuses).toEqual([
      { status: "expired", n: 1 },
      { status: "pending", n: 4 }
    ])
    expect((await countsOf([request.id]))[0]!.offer_count).toBe(4)
    const expiredEvents = await sql(
      (s) => s<{ n: number }>`
        SELECT count(*)::int AS n FROM outbox_events WHERE type = 'OfferExpired' AND payload->>'offerId' = ${lapsed.id}`
    )
    expect(expiredEvents[0]!.n).toBe(1)
  })

  it("an offer the database refuses fails alone; the others made with it are stored and counted", async () => {
    const m = market()
    const buyer = await m.buyer("Owner")
    const request = await m.createRequest(buyer)
    const sellers = await Promise.all(Array.from({ length: 7 }, (_, k) => m.approvedSeller(`Shop ${k}`)))
    const answers = await Promise.all(
      sellers.map((seller, k) => propose(seller, request.id, k === 3 ? { availability: "refuse me" } : {}))
    )
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 500, 201, 201, 201])
    expect(await offersOf([request.id])).toHaveLength(6)
    expect((await countsOf([request.id]))[0]!.offer_count).toBe(6)
  })

  it("two instances' batches in which alerted sellers offer in opposite orders do not deadlock on the sellers' figures", async () => {
    await expectGatheredWithoutFallback([suite.server().logs, beside().logs], "offers", opposingBatches)
  })

  /** Two batches, one per instance, taking the sellers' figures in opposite orders; whether each was gathered whole. */
  const opposingBatches = async () => {
    const m = market()
    const buyer = await m.buyer("Owner")
    const [a1, b1, b2, a2] = await Promise.all(Array.from({ length: 4 }, () => m.createRequest(buyer)))
    const [sellerA, sellerB, slowOne, slowTwo] = await Promise.all(
      ["Shop A", "Shop B", "Slow one", "Slow two"].map((name) => m.approvedSeller(name))
    )
    // Alerted to their requests, so each seller's first offer there locks that seller's figures (migration 0015).
    const at = new Date(suite.server().clock.unsafeCurrentTimeMillis())
    await sql(
      (s) =>
        s`INSERT INTO request_matches ${s.insert(
          (
            [
              [a1!, sellerA!],
              [b1!, sellerB!],
              [b2!, sellerB!],
              [a2!, sellerA!]
            ] as const
          ).map(([request, seller]) => ({ request_id: request.id, seller_user_id: seller.userId, matched_at: at }))
        )}`
    )
    // A batch holds the figures it has locked while a "slow" offer of its own sleeps, in the middle of it.
    const answers = await withSlowMarkedRows(
      suite.databaseUrl()!,
      { table: "offers", column: "availability" },
      async () => {
        // Three connections to each instance kept alive first, so the three offers of each batch reach it at one moment.
        const other = beside()
        const elsewhere = new Marketplace(other, client(other), adminPhone)
        await Promise.all([
          ...[sellerA!, slowOne!, sellerB!].map((seller) => m.me(seller)),
          ...[sellerB!, slowTwo!, sellerA!].map((seller) => elsewhere.me(seller))
        ])
        // The first batch: seller A, a slow offer, seller B; the second, on the other instance while the first
        // sleeps, the other way round.
        const firstBatch = Promise.all([
          propose(sellerA!, a1!.id),
          propose(slowOne!, a1!.id, { availability: "slow" }),
          propose(sellerB!, b1!.id)
        ])
        await new Promise((resolve) => setTimeout(resolve, 150))
        const secondBatch = Promise.all([
          propose(sellerB!, b2!.id, {}, other),
          propose(slowTwo!, b2!.id, { availability: "slow" }, other),
          propose(sellerA!, a2!.id, {}, other)
        ])
        return [...(await firstBatch), ...(await secondBatch)]
      }
    )
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201))
    // A batch gathered whole committed as one transaction.
    const transactions = async (requests: ReadonlyArray<{ id: string }>) =>
      new Set((await offersOf(requests.map((r) => r.id))).map((offer) => offer.tx)).size
    return (await transactions([a1!, b1!])) === 1 && (await transactions([b2!, a2!])) === 1
  }
})
