import { describe, expect, it } from "vitest"
import { aRequestBody } from "../support/fixtures.js"
import { client, relaxedLimits, type SignedIn, signIn } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { useTwoInstances } from "../support/two-instances.js"

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const REQUESTS = 12

/**
 * Two instances on one PostgreSQL database, both running the expiry job when their clocks move: every request
 * is reminded once and expired once, each push queued once and delivered once across the two.
 */
describe("request expiry with two instances on one PostgreSQL database", () => {
  const cluster = useTwoInstances({ settings: relaxedLimits })

  const delivered = (type: string, ids: ReadonlyArray<string>) =>
    [...cluster.a.pushes.delivered, ...cluster.b.pushes.delivered].filter(
      (p) => p.type === type && ids.includes(p.data.request_id ?? "")
    )
  const queued = (type: string) =>
    runSql(
      cluster.database.url,
      (sql) => sql<{ request_id: string; n: number }>`
        SELECT payload->'data'->>'request_id' AS request_id, count(*)::int AS n FROM notifications
        WHERE type = ${type} GROUP BY 1`
    )
  const everyPass = () =>
    Promise.all([cluster.a.runExpiry(), cluster.b.runExpiry(), cluster.a.runExpiry(), cluster.b.runExpiry()])
  const waitForAll = async (type: string, ids: ReadonlyArray<string>) => {
    await Promise.all(
      ids.map((id) =>
        Promise.race([
          cluster.a.pushes.waitFor((p) => p.type === type && p.data.request_id === id, 20_000),
          cluster.b.pushes.waitFor((p) => p.type === type && p.data.request_id === id, 20_000)
        ])
      )
    )
  }

  it("sends each reminder and each expiry push once, whichever instance's job gets to the request", async () => {
    const buyers: Array<SignedIn> = []
    const ids: Array<string> = []
    for (let i = 0; i < REQUESTS; i++) {
      const server = i % 2 === 0 ? cluster.a : cluster.b
      const buyer = await signIn(server, client(server))
      await client(server).post("/device-tokens", {
        token: buyer.token,
        body: { platform: "ios", push_token: `cluster-${buyer.userId}` }
      })
      const posted = await client(server).post("/requests", { token: buyer.token, body: aRequestBody() })
      expect(posted.status).toBe(201)
      buyers.push(buyer)
      ids.push(posted.body.data.id)
    }

    // Both clocks move (each wakes its own job), then both run passes at the same time.
    cluster.a.clock.advance(29 * DAY + HOUR)
    cluster.b.clock.advance(29 * DAY + HOUR)
    await everyPass()
    await waitForAll("request_expiring", ids)

    cluster.a.clock.advance(DAY)
    cluster.b.clock.advance(DAY)
    await everyPass()
    await waitForAll("request_expired", ids)

    const reminders = await queued("request_expiring")
    const expiries = await queued("request_expired")
    expect(reminders.filter((r) => ids.includes(r.request_id)).map((r) => r.n)).toEqual(ids.map(() => 1))
    expect(expiries.filter((r) => ids.includes(r.request_id)).map((r) => r.n)).toEqual(ids.map(() => 1))
    // Delivered once each (one device per buyer), by one instance or the other.
    expect(delivered("request_expiring", ids)).toHaveLength(REQUESTS)
    expect(delivered("request_expired", ids)).toHaveLength(REQUESTS)
    const statuses = await runSql(
      cluster.database.url,
      (sql) => sql<{ status: string }>`SELECT status FROM buy_requests WHERE id IN ${sql.in(ids)}`
    )
    expect(statuses.map((r) => r.status)).toEqual(ids.map(() => "expired"))
  }, 180_000)
})
