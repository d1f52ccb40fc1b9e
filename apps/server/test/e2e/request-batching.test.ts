import { describe, expect, it } from "vitest"
import { Marketplace, marketplaceSettings, requestBody } from "../support/fixtures.js"
import { client, newPhone, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { refuseMarkedRows } from "../support/refused-rows.js"

/**
 * Requests posted at the same moment are stored in one transaction (requests/Batches.ts), on PostgreSQL: each
 * poster still gets their own request, with its event in the outbox and its words searchable, and a request the
 * database refuses fails alone. Rows of one transaction share their `xmin`, which is how the tests see that
 * requests were stored together.
 */
describe("requests stored in batches on postgres", { timeout: 90_000 }, () => {
  const adminPhone = newPhone()
  const suite = useServerWithDatabase("postgres", marketplaceSettings([adminPhone]))
  const market = () => new Marketplace(suite.server(), client(suite.server()), adminPhone)
  const sql = <A>(statement: Parameters<typeof runSql<A>>[1]) => runSql(suite.databaseUrl()!, statement)

  refuseMarkedRows(() => suite.databaseUrl()!, "buy_requests", "notes")

  const post = (buyer: SignedIn, notes: string, model = "iPhone 15 Pro") =>
    client(suite.server()).raw.post("/requests", {
      token: buyer.token,
      body: requestBody({ notes, product_model: model })
    })
  const storedOf = (buyerIds: ReadonlyArray<string>) =>
    sql(
      (s) =>
        s<{ id: string; notes: string; buyer: string; tx: string; events: number }>`
        SELECT r.id, r.notes, r.buyer_id AS buyer, r.xmin::text AS tx,
          (SELECT count(*)::int FROM outbox_events e
           WHERE e.type = 'RequestCreated' AND e.payload->>'requestId' = r.id::text) AS events
        FROM buy_requests r WHERE r.buyer_id IN ${s.in(buyerIds)} ORDER BY r.notes`
    )

  it("stores requests posted at once together, each the poster's own, with its event and its words", async () => {
    const m = market()
    const buyers = await Promise.all(Array.from({ length: 12 }, (_, k) => m.buyer(`Buyer ${k}`)))
    const answers = await Promise.all(buyers.map((buyer, k) => post(buyer, `note ${k}`, `Galaxy S${k + 10}`)))
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201))
    for (const [k, answer] of answers.entries()) {
      expect(answer.body.data).toMatchObject({ buyer_id: buyers[k]!.userId, notes: `note ${k}`, photos: [] })
    }
    const rows = await storedOf(buyers.map((buyer) => buyer.userId))
    expect(rows).toHaveLength(12)
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(answers.map((a) => a.body.data.id)))
    for (const row of rows) {
      expect(row.buyer).toBe(buyers[Number(row.notes.slice("note ".length))]!.userId)
      expect(row.events).toBe(1)
    }
    // Fewer transactions than requests: some were stored together.
    expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(12)
    // Each request's own words find it, as they would had it been posted alone.
    const found = await client(suite.server()).raw.get("/requests?q=galaxy%20s17", { token: buyers[0]!.token })
    expect(found.body.data.requests.map((r: { id: string }) => r.id)).toEqual([answers[7]!.body.data.id])
  })

  it("a request the database refuses fails alone; the others posted with it are stored", async () => {
    const m = market()
    const buyers = await Promise.all(Array.from({ length: 9 }, (_, k) => m.buyer(`Poster ${k}`)))
    const answers = await Promise.all(buyers.map((buyer, k) => post(buyer, k === 4 ? "refuse me" : `fine ${k}`)))
    expect(answers.map((a) => a.status)).toEqual([...Array(4).fill(201), 500, ...Array(4).fill(201)])
    const rows = await storedOf(buyers.map((buyer) => buyer.userId))
    expect(rows.map((row) => row.notes).sort()).toEqual(
      ["fine 0", "fine 1", "fine 2", "fine 3", "fine 5", "fine 6", "fine 7", "fine 8"].sort()
    )
    expect(rows.every((row) => row.events === 1)).toBe(true)
  })

  it("a request whose photos are not the buyer's gets its own error; the others posted with it are stored", async () => {
    const m = market()
    const buyers = await Promise.all(Array.from({ length: 7 }, (_, k) => m.buyer(`Photographer ${k}`)))
    const answers = await Promise.all(
      buyers.map((buyer, k) =>
        client(suite.server()).raw.post("/requests", {
          token: buyer.token,
          body: requestBody({ notes: `with ${k}`, ...(k === 3 ? { photo_ids: [crypto.randomUUID()] } : {}) })
        })
      )
    )
    expect(answers.map((a) => a.status)).toEqual([...Array(3).fill(201), 400, ...Array(3).fill(201)])
    expect((await storedOf(buyers.map((buyer) => buyer.userId))).map((row) => row.notes).sort()).toEqual(
      ["with 0", "with 1", "with 2", "with 4", "with 5", "with 6"].sort()
    )
  })
})
