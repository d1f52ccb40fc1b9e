import type { TestServer } from "@talab/testkit"
import { describe, expect, it } from "vitest"
import { ADMIN_PHONE, Marketplace, marketSettings } from "../support/fixtures.js"
import { client, type SignedIn, useServer, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { useTwoInstances } from "../support/two-instances.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/**
 * The read cache (readcache/ReadCache.ts) on two instances sharing PostgreSQL and Redis: each read below is
 * made on both instances first, twice, so both hold it (the second read is a hit), then a write made through
 * one of them is seen by the very next read on the same instance and on the other.
 */
describe("read cache across two instances sharing Redis and PostgreSQL", { timeout: 90_000 }, () => {
  const cluster = useTwoInstances({ redisUrl: REDIS_URL, settings: marketSettings })
  const market = (server: TestServer) => new Marketplace(server, client(server), ADMIN_PHONE)

  /** Reads `path` twice on each instance (kept, then answered from memory) and answers the last body's data. */
  const warm = async (path: string, user?: SignedIn) => {
    let data: any
    for (const server of [cluster.a, cluster.b]) {
      for (let i = 0; i < 2; i++) {
        const response = await client(server).raw.get(path, user ? { token: user.token } : {})
        expect(response.status).toBe(200)
        data = response.body.data
      }
    }
    return data
  }
  const readOn = async (server: TestServer, path: string, user?: SignedIn) => {
    const response = await client(server).raw.get(path, user ? { token: user.token } : {})
    expect(response.status).toBe(200)
    return response.body.data
  }

  it("GET /requests/{id}: a close, an offer and a deal are seen at once on both instances, masking kept per viewer", async () => {
    const a = market(cluster.a)
    const b = market(cluster.b)
    const buyer = await a.buyer("Cache Buyer")
    const seller = await a.approvedSeller("Cache Seller")
    const other = await a.approvedSeller("Other Seller")
    const posted = await a.createRequest(buyer, { notes: "call me on 0551234567" })
    const path = `/requests/${posted.id}`

    expect((await warm(path, seller)).offer_count).toBe(0)
    expect((await warm(path, buyer)).notes).toBe("call me on 0551234567")
    const masked = (await warm(path, seller)).notes
    expect(masked).not.toBe("call me on 0551234567")

    const offer = await b.offer(seller, posted.id)
    for (const server of [cluster.b, cluster.a]) expect((await readOn(server, path, other)).offer_count).toBe(1)

    await warm(path, seller)
    await a.accept(buyer, offer.id)
    for (const server of [cluster.a, cluster.b]) {
      // The dealt seller now reads the notes unmasked; anybody else still masked.
      expect((await readOn(server, path, seller)).notes).toBe("call me on 0551234567")
      expect((await readOn(server, path, other)).notes).toBe(masked)
    }
  })

  it("GET /requests/{id}: reads arriving together while it is read once each get their own variant", async () => {
    const a = market(cluster.a)
    const buyer = await a.buyer("Together Buyer")
    const sellers = [await a.approvedSeller("Together One"), await a.approvedSeller("Together Two")]
    const posted = await a.createRequest(buyer, { notes: "call me on 0551234567" })
    const path = `/requests/${posted.id}`
    for (let round = 0; round < 3; round++) {
      // Dropped by an offer, then read by everyone at once, in both languages, on both instances.
      await a.offer(sellers[round % 2]!, posted.id).catch(() => undefined)
      const reads = [cluster.a, cluster.b].flatMap((server) =>
        [buyer, ...sellers, buyer, ...sellers].map(async (user, i) => {
          const language = i < 3 ? "ar" : "en"
          const response = await client(server).raw.get(path, {
            token: user.token,
            headers: { "accept-language": language }
          })
          expect(response.status).toBe(200)
          return { user, language, notes: response.body.data.notes as string }
        })
      )
      for (const { user, notes } of await Promise.all(reads)) {
        if (user === buyer) expect(notes).toBe("call me on 0551234567")
        else expect(notes).not.toContain("0551234567")
      }
    }
  })

  it("GET /requests/{id}: closing through one instance is the next read on both", async () => {
    const a = market(cluster.a)
    const buyer = await a.buyer()
    for (let round = 0; round < 3; round++) {
      const posted = await a.createRequest(buyer)
      const path = `/requests/${posted.id}`
      expect((await warm(path, buyer)).status).toBe("active")
      const closer = round % 2 === 0 ? cluster.a : cluster.b
      expect((await client(closer).put(`/requests/${posted.id}/close`, { token: buyer.token })).status).toBe(200)
      for (const server of [cluster.a, cluster.b]) expect((await readOn(server, path, buyer)).status).toBe("closed")
    }
  })

  it("GET /requests (any query): a create and a close are the next page on both instances", async () => {
    const a = market(cluster.a)
    const buyer = await a.buyer()
    for (let round = 0; round < 3; round++) {
      const city = `Cachecity${round}`
      const path = `/requests?per_page=5&location_city=${city}`
      // The same query spelled in another order is the same entry.
      const reordered = `/requests?location_city=${city}&per_page=5`
      expect((await warm(path, buyer)).requests).toHaveLength(0)
      expect((await warm(reordered, buyer)).requests).toHaveLength(0)
      const creator = round % 2 === 0 ? cluster.b : cluster.a
      const created = await market(creator).createRequest(buyer, { location_city: city })
      for (const server of [cluster.a, cluster.b]) {
        const page = await readOn(server, path, buyer)
        expect(page.requests.map((r: { id: string }) => r.id)).toEqual([created.id])
        expect(page.pagination.total).toBe(1)
        expect((await readOn(server, reordered, buyer)).pagination.total).toBe(1)
      }
      await warm(path, buyer)
      expect((await client(creator).put(`/requests/${created.id}/close`, { token: buyer.token })).status).toBe(200)
      for (const server of [cluster.a, cluster.b]) expect((await readOn(server, path, buyer)).requests).toHaveLength(0)
    }
  })

  it("GET /seller-profiles/{id}: a rating through one instance is the next read on both", async () => {
    const a = market(cluster.a)
    const b = market(cluster.b)
    const seller = await a.approvedSeller("Rated Seller")
    const path = `/seller-profiles/${seller.profileId}`
    expect((await warm(path)).rating_count).toBe(0)
    for (let round = 1; round <= 2; round++) {
      const buyer = await a.buyer()
      const scene = await a.completedDeal(buyer, seller)
      await warm(path)
      await (round === 1 ? a : b).rate(buyer, scene.deal.id, 5)
      for (const server of [cluster.a, cluster.b]) expect((await readOn(server, path)).rating_count).toBe(round)
    }
  })

  it("a buyer's new name is the next read of their request on both instances", async () => {
    const a = market(cluster.a)
    const buyer = await a.buyer("First Name")
    const posted = await a.createRequest(buyer)
    const path = `/requests/${posted.id}`
    expect((await warm(path, buyer)).buyer.name).toBe("First Name")
    expect(
      (await client(cluster.b).put("/users/me", { token: buyer.token, body: { name: "Second Name" } })).status
    ).toBe(200)
    for (const server of [cluster.a, cluster.b])
      expect((await readOn(server, path, buyer)).buyer.name).toBe("Second Name")
  })
})

describe("a read answered from memory", () => {
  const limited = { ...marketSettings, rateLimits: { ...marketSettings.rateLimits, apiPerMinute: 6 } }
  const server = useServer("postgres", { settings: limited })
  const offSuite = useServerWithDatabase("postgres", {
    settings: { ...limited, readCache: { enabled: false, maxBytes: 1, ttlMs: 1 } }
  })
  const off = offSuite.server

  it("is still authenticated and counted against the caller's budget", async () => {
    const m = new Marketplace(server(), client(server()), ADMIN_PHONE)
    const buyer = await m.buyer()
    const posted = await m.createRequest(buyer)
    const reader = await m.buyer()
    const path = `/requests/${posted.id}`
    const api = client(server()).raw
    // The reader's PUT /users/me (naming them) took one call of six; the first read is kept, the rest are hits.
    const remaining: Array<string | null> = []
    for (let i = 0; i < 5; i++) {
      const response = await api.get(path, { token: reader.token })
      expect(response.status).toBe(200)
      remaining.push(response.headers.get("ratelimit-remaining"))
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"])
    const refused = await api.get(path, { token: reader.token })
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe("RATE_LIMITED")
    expect(refused.headers.get("retry-after")).not.toBeNull()
    expect((await api.get(path)).status).toBe(401)
    expect((await api.get(path, { token: `${reader.token}x` })).status).toBe(401)
    expect((await api.get("/requests")).status).toBe(401)
  })

  it("is never one with READ_CACHE=off: the database answers each read", async () => {
    const m = new Marketplace(off(), client(off()), ADMIN_PHONE)
    const buyer = await m.buyer()
    const posted = await m.createRequest(buyer)
    const path = `/requests/${posted.id}`
    expect((await client(off()).raw.get(path, { token: buyer.token })).body.data.buyer.name).toBe("Buyer")
    // Changed behind the server's back, where no write of its own announces it.
    await runSql(offSuite.databaseUrl()!, (sql) => sql`UPDATE users SET name = 'Renamed' WHERE id = ${buyer.userId}`)
    expect((await client(off()).raw.get(path, { token: buyer.token })).body.data.buyer.name).toBe("Renamed")
  })
})
