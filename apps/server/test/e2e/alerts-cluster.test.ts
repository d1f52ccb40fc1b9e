import { describe, expect, it } from "vitest"
import { aRequestBody, market, marketSettings } from "../support/fixtures.js"
import { client, type SignedIn } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { useTwoInstances } from "../support/two-instances.js"
import { connectAs } from "../support/ws-client.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const SELLERS = 5
const REQUESTS = 12

/**
 * Two instances on one PostgreSQL database and one Redis, both with their alert matcher polling: requests posted
 * at once through either are matched by one matcher or the other, never both — each matching seller gets one
 * request_match push per request (SKIP LOCKED on the outbox event, request_matches' key), and one event frame
 * per request on each of their sockets, whichever instance holds it.
 */
describe("seller alerts with two instances on one PostgreSQL database", () => {
  // Every seller matches every request: the hourly limit of alert pushes (spam-bounds.test.ts) is lifted here.
  const cluster = useTwoInstances({
    redisUrl: REDIS_URL,
    settings: { ...marketSettings, requestMatchPushesPerHour: SELLERS * REQUESTS }
  })

  const matchPushes = (ids: ReadonlyArray<string>) =>
    [...cluster.a.pushes.delivered, ...cluster.b.pushes.delivered].filter(
      (p) => p.type === "request_match" && ids.includes(p.data.request_id ?? "")
    )

  it("alerts each matching seller once per request, whichever instance matched it", async () => {
    const m = market(() => cluster.a)
    const city = `Cluster City ${Date.now()}`
    const sellers: Array<SignedIn> = []
    for (let i = 0; i < SELLERS; i++) {
      const seller = await m.seller(`Cluster Seller ${i}`)
      m.expectStatus(
        await m.api().post("/device-tokens", {
          token: seller.token,
          body: { platform: "android", push_token: `alerts-cluster-${seller.userId}` }
        }),
        201,
        "device"
      )
      m.expectStatus(
        await m
          .api()
          .post("/seller-profiles/me/alerts", { token: seller.token, body: { categories: ["phone"], cities: [city] } }),
        201,
        "rule"
      )
      sellers.push(seller)
    }
    const buyer = await m.user("Cluster Buyer")
    // The first seller has a socket on each instance: the one that matched a request delivers to its own socket
    // and, through Redis, to the other's.
    const sockets = [
      await connectAs(cluster.a.wsUrl, sellers[0]!.token),
      await connectAs(cluster.b.wsUrl, sellers[0]!.token)
    ]

    // All at once, half through each instance, so both matchers find new events in the same rounds.
    const posted = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        client(i % 2 === 0 ? cluster.a : cluster.b).post("/requests", {
          token: buyer.token,
          body: aRequestBody({ location_city: city, product_model: `iPhone cluster ${i}` })
        })
      )
    )
    expect(posted.map((r) => r.status)).toEqual(posted.map(() => 201))
    const ids = posted.map((r) => r.body.data.id as string)

    await expect.poll(() => matchPushes(ids).length, { timeout: 20_000, interval: 50 }).toBe(SELLERS * REQUESTS)
    // Rounds of both matchers that could still repeat one: the next two polls of each (250 ms apart).
    await new Promise((resolve) => setTimeout(resolve, 1_000))

    for (const socket of sockets) {
      await expect.poll(() => socket.all("event").length, { timeout: 5_000, interval: 50 }).toBe(REQUESTS)
      const events = socket.all("event")
      expect(new Set(events.map((frame) => frame.data.request_id))).toEqual(new Set(ids))
      const shown = posted.map((r) => r.body.data)
      for (const { data } of events) {
        const request = shown.find((r) => r.id === data.request_id)
        expect(data).toEqual({
          request_id: request?.id,
          category: request?.category,
          product_brand: request?.product_brand,
          product_model: request?.product_model,
          budget_min: request?.budget_min,
          budget_max: request?.budget_max,
          location_city: request?.location_city,
          location_district: request?.location_district,
          created_at: request?.created_at
        })
      }
      socket.close()
    }

    const delivered = matchPushes(ids).map((p) => `${p.data.request_id} ${p.userId}`)
    expect(new Set(delivered).size).toBe(SELLERS * REQUESTS)
    expect(delivered).toHaveLength(SELLERS * REQUESTS)
    expect(new Set(matchPushes(ids).map((p) => p.userId))).toEqual(new Set(sellers.map((s) => s.userId)))

    const queued = await runSql(
      cluster.database.url,
      (sql) => sql<{ n: number; pairs: number }>`
        SELECT count(*)::int AS n, count(DISTINCT (user_id, payload->'data'->>'request_id'))::int AS pairs
        FROM notifications WHERE type = 'request_match' AND payload->'data'->>'request_id' IN ${sql.in(ids)}`
    )
    expect(queued).toEqual([{ n: SELLERS * REQUESTS, pairs: SELLERS * REQUESTS }])
    const matches = await runSql(
      cluster.database.url,
      (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM request_matches WHERE request_id IN ${sql.in(ids)}`
    )
    expect(matches).toEqual([{ n: SELLERS * REQUESTS }])
  }, 180_000)
})
