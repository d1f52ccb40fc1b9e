import { readFileSync } from "node:fs"
import type { TestServer } from "@talab/testkit"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { chatScene, Marketplace } from "../support/fixtures.js"
import { client, newPhone, relaxedLimits, signIn, startServer } from "../support/harness.js"
import { startPgBouncer } from "../support/pgbouncer.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { connectAs, type WsClient } from "../support/ws-client.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const jpeg = new Uint8Array(readFileSync(new URL("../fixtures/exif-gps.jpg", import.meta.url)))

/*
 * Two instances whose every SQL statement goes through PgBouncer in transaction pooling mode, with fewer
 * server connections than the two pools hold: a client connection gets a server connection for one
 * transaction only. What must hold there: no named prepared statements, no LISTEN, no session state.
 */
describe("two instances through PgBouncer in transaction mode", () => {
  const adminPhone = newPhone()
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>
  let pooler: Awaited<ReturnType<typeof startPgBouncer>>
  let a: TestServer
  let b: TestServer
  const opened: Array<WsClient> = []

  beforeAll(async () => {
    database = await createPostgresDatabase()
    pooler = await startPgBouncer(new URL(database.url), 3)
    const options = {
      databaseUrl: pooler.through(database.url),
      redisUrl: REDIS_URL,
      settings: {
        ...relaxedLimits,
        adminPhoneNumbers: [adminPhone],
        fileStore: "database" as const,
        // Every read goes through the pooler to the database, none is answered from memory.
        readCache: { enabled: false, maxBytes: 1, ttlMs: 1 }
      }
    }
    a = await startServer(options)
    b = await startServer(options)
  }, 120_000)
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await pooler?.stop()
    await database?.drop()
  }, 60_000)
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })

  it("signs in on one instance and is known on the other; an avatar stored through one is served by the other", async () => {
    const me = await signIn(a, client(a))
    expect((await client(b).get("/users/me", { token: me.token })).status).toBe(200)
    const form = new FormData()
    form.append("avatar", new Blob([jpeg], { type: "image/jpeg" }), "me.jpg")
    const uploaded = await client(b).post("/users/me/avatar", { token: me.token, rawBody: form })
    expect(uploaded.status).toBe(200)
    const served = await fetch(`${a.baseUrl}${new URL(uploaded.body.data.avatar_url).pathname}`)
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe("image/webp")
  })

  it("runs the marketplace and chat across both: transactions, row locks and fan-out", async () => {
    const m = new Marketplace(a, client(a), adminPhone)
    const scene = await chatScene(m)
    const buyerOnB = await connectAs(b.wsUrl, scene.buyer.token, [scene.conversationId])
    const sellerOnA = await connectAs(a.wsUrl, scene.seller.token, [scene.conversationId])
    opened.push(buyerOnB, sellerOnA)
    sellerOnA.send({ type: "message", conversation_id: scene.conversationId, message_text: "hi", client_id: "p-1" })
    const ack = await sellerOnA.nextOfType("ack")
    expect(await buyerOnB.nextOfType("message")).toEqual({ type: "message", data: ack.data })

    // Concurrent writes on both instances, more than the pooler's server connections at once.
    const sent = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        client(index % 2 === 0 ? a : b).post(`/conversations/${scene.conversationId}/messages`, {
          token: scene.buyer.token,
          body: { message_text: `message ${index}` }
        })
      )
    )
    expect(sent.map((response) => response.status)).toEqual(Array(12).fill(201))
    const listed = await client(b).get(`/conversations/${scene.conversationId}/messages?limit=50`, {
      token: scene.seller.token
    })
    expect(listed.status).toBe(200)
    expect(listed.body.data.messages).toHaveLength(13)
  })

  it("reads a request's detail through its PL/pgSQL function on every server connection, planned once each", async () => {
    const m = new Marketplace(a, client(a), adminPhone)
    const scene = await chatScene(m)
    const requestId: string = scene.offer.request_id
    // More reads than server connections, and more on each than PostgreSQL's five custom plans before it
    // keeps a generic one: each answer must be the one a fresh plan gives.
    const reads = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        client(index % 2 === 0 ? a : b).get(`/requests/${requestId}`, { token: scene.seller.token })
      )
    )
    expect(reads.map((response) => response.status)).toEqual(Array(24).fill(200))
    for (const read of reads) {
      expect(read.body.data).toMatchObject({ id: requestId, status: "active", offer_count: 1 })
      expect(read.body.data).toEqual(reads[0]!.body.data)
    }
  })
})
