import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { runCli } from "@talab/http-server"
import type { TestServer } from "@talab/testkit"
import { Effect, Redacted } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { chatScene, Marketplace, postMessage } from "../support/fixtures.js"
import { client, newPhone, relaxedLimits, type SignedIn, signIn, startServer } from "../support/harness.js"
import { claimsOf } from "../support/jwt.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { expectResumedWithoutGap, sendOverSocket, subscribeSince, writeConcurrently } from "../support/seq.js"
import { type PostgresDatabase, useTwoInstances } from "../support/two-instances.js"
import { connectAs, WsClient } from "../support/ws-client.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/** `recipientOnline` of the MessageSent event the message raised, read from the shared database. */
const recipientOnline = (databaseUrl: string, messageId: string) =>
  Effect.runPromise(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ online: boolean }>`
        SELECT (payload ->> 'recipientOnline')::boolean AS online FROM outbox_events
        WHERE type = 'MessageSent' AND payload ->> 'messageId' = ${messageId}`
    ).pipe(
      Effect.map((rows) => rows.map((row) => row.online)),
      Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })),
      Effect.orDie
    )
  )

/**
 * Two server processes' worth of instances on one PostgreSQL database and one Redis, as behind a load
 * balancer: a socket on either instance gets what is sent through the other.
 */
describe("two instances sharing Redis and PostgreSQL", () => {
  const adminPhone = newPhone()
  const cluster = useTwoInstances({
    redisUrl: REDIS_URL,
    settings: {
      // One phone signs in many times for the socket caps.
      rateLimits: { ...relaxedLimits.rateLimits, otpPer10Minutes: 100 },
      adminPhoneNumbers: [adminPhone]
    }
  })
  let database: PostgresDatabase
  let a: TestServer
  let b: TestServer
  let m: Marketplace
  const opened: Array<WsClient> = []
  const on = async (server: TestServer, token: string, conversations: ReadonlyArray<string> = []) => {
    const socket = await connectAs(server.wsUrl, token, conversations)
    opened.push(socket)
    return socket
  }

  beforeAll(() => {
    ;({ a, b, database } = cluster)
    m = new Marketplace(a, client(a), adminPhone)
  })
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })

  it("delivers a message frame sent on one instance to subscribers on both, every device", async () => {
    const scene = await chatScene(m)
    const buyerOnB = await on(b, scene.buyer.token, [scene.conversationId])
    const buyerOnA = await on(a, scene.buyer.token, [scene.conversationId])
    const sellerOnA = await on(a, scene.seller.token, [scene.conversationId])
    const sellerOnB = await on(b, scene.seller.token, [scene.conversationId])

    sellerOnA.send({ type: "message", conversation_id: scene.conversationId, message_text: "from A", client_id: "a-1" })
    const ack = await sellerOnA.nextOfType("ack")
    const delivered = { type: "message", data: ack.data }
    for (const socket of [buyerOnB, buyerOnA, sellerOnA, sellerOnB])
      expect(await socket.nextOfType("message")).toEqual(delivered)

    // Exactly once each: nothing echoes back from the other instance.
    buyerOnB.send({ type: "message", conversation_id: scene.conversationId, message_text: "from B", client_id: "b-1" })
    await buyerOnB.nextOfType("ack")
    for (const socket of [buyerOnB, buyerOnA, sellerOnA, sellerOnB]) {
      expect((await socket.nextOfType("message")).data.message_text).toBe("from B")
      await socket.barrier()
      expect(socket.all("message").map((f) => f.data.message_text)).toEqual(["from A", "from B"])
    }
  })

  it("delivers a REST POST made on one instance to sockets on the other", async () => {
    const scene = await chatScene(m)
    const sellerOnB = await on(b, scene.seller.token, [scene.conversationId])
    const sent = await postMessage(client(a), scene.buyer, scene.conversationId, "posted on A")
    expect(await sellerOnB.nextOfType("message")).toEqual({ type: "message", data: sent })
  })

  it("resumes from since_seq on one instance while both write: no gap, no duplicate", async () => {
    const scene = await chatScene(m)
    for (let i = 1; i <= 5; i++) await postMessage(client(a), scene.seller, scene.conversationId, `before ${i}`)
    const total = 60
    const sellerOnA = await on(a, scene.seller.token)
    const buyerOnB = await on(b, scene.buyer.token)
    const writing = writeConcurrently(5, total, [
      (text) => sendOverSocket(sellerOnA, scene.conversationId, text),
      (text) => sendOverSocket(buyerOnB, scene.conversationId, text),
      ...Array.from(
        { length: 10 },
        (_, i) => (text: string) =>
          postMessage(client(i % 2 ? a : b), i % 2 ? scene.seller : scene.buyer, scene.conversationId, text)
      )
    ])
    const resumed: Array<{ socket: WsClient; since: number }> = []
    for (const [index, since] of [3, 0, 8, 1, 12, 5].entries()) {
      while (writing.written() < 6 * (index + 2)) await new Promise((resolve) => setTimeout(resolve, 2))
      // The resuming sockets are on B; what A stores reaches them through Redis.
      const socket = await on(b, scene.seller.token)
      expect(await subscribeSince(socket, scene.conversationId, since)).toMatchObject({ type: "subscribed" })
      resumed.push({ socket, since })
    }
    await writing.done
    await expectResumedWithoutGap(resumed, scene.conversationId, total)
  })

  it("counts a recipient subscribed on the other instance as online, and as offline once unsubscribed or gone", async () => {
    const scene = await chatScene(m)
    const api = client(a)
    const offline = await postMessage(api, scene.buyer, scene.conversationId, "nobody listening")
    expect(await recipientOnline(database.url, offline.id)).toEqual([false])

    const sellerOnB = await on(b, scene.seller.token, [scene.conversationId])
    const online = await postMessage(api, scene.buyer, scene.conversationId, "seller on B")
    expect(await recipientOnline(database.url, online.id)).toEqual([true])

    // The sender's own presence does not count for the recipient.
    const buyerOnA = await on(a, scene.buyer.token, [scene.conversationId])
    sellerOnB.send({ type: "unsubscribe", channel: `conversation.${scene.conversationId}` })
    await sellerOnB.nextOfType("unsubscribed")
    const afterUnsubscribe = await postMessage(api, scene.buyer, scene.conversationId, "seller left")
    expect(await recipientOnline(database.url, afterUnsubscribe.id)).toEqual([false])

    const sellerAgain = await on(b, scene.seller.token, [scene.conversationId])
    expect(
      await recipientOnline(database.url, (await postMessage(api, scene.buyer, scene.conversationId, "back")).id)
    ).toEqual([true])
    sellerAgain.close()
    await sellerAgain.closed
    await waitUntil(async () => {
      const sent = await postMessage(api, scene.buyer, scene.conversationId, "closed?")
      return (await recipientOnline(database.url, sent.id))[0] === false
    })
    await buyerOnA.barrier()
  })

  it("closes a session's sockets on every instance when it logs out on one", async () => {
    const user = await m.buyer()
    const onA = await on(a, user.token)
    const onB = await on(b, user.token)
    expect((await client(a).post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
    expect((await onB.closed).code).toBe(4401)
    expect((await onA.closed).code).toBe(4401)
  })

  it("a session ended on one instance answers 401 on the other at once, and its socket there closes with 4401", async () => {
    const phone = newPhone()
    const ended = await signIn(a, client(a), phone)
    const current = await signIn(a, client(a), phone)
    const onB = await on(b, ended.token)
    const endedId = claimsOf(ended.token).sid as string
    expect((await client(a).delete(`/auth/sessions/${endedId}`, { token: current.token })).status).toBe(200)
    expect((await client(b).get("/users/me", { token: ended.token })).status).toBe(401)
    expect((await client(b).post("/auth/refresh", { body: { refresh_token: ended.refreshToken } })).status).toBe(401)
    expect((await onB.closed).code).toBe(4401)
    expect((await client(b).get("/users/me", { token: current.token })).status).toBe(200)
  })

  it("talab sessions revoke (another process) closes the user's sockets on every instance with 4401", async () => {
    const user = await signIn(a, client(a))
    const onA = await on(a, user.token)
    const onB = await on(b, user.token)
    const outcome = await Effect.runPromise(
      runCli(["sessions", "revoke", user.phone], { DATABASE_URL: database.url, REDIS_URL })
    )
    expect(outcome).toMatchObject({ code: 0, stdout: [`revoked 1 session of ${user.phone}`] })
    expect((await onA.closed).code).toBe(4401)
    expect((await onB.closed).code).toBe(4401)
    expect((await client(b).get("/users/me", { token: user.token })).status).toBe(401)
  })

  const isOpen = (socket: WsClient) => socket.ws.readyState === socket.ws.OPEN

  it("caps a session at 10 sockets over both instances: the 11th closes the oldest, on the other, with 4008", async () => {
    const user = await signIn(a, client(a))
    const sockets: Array<WsClient> = []
    for (let i = 0; i < 10; i++) sockets.push(await on(i < 5 ? a : b, user.token))
    await Promise.all(sockets.map((socket) => socket.barrier()))
    expect(sockets.every(isOpen)).toBe(true)

    const eleventh = await on(b, user.token)
    expect(await sockets[0]!.closed).toEqual({ code: 4008, reason: "too many sockets" })
    const others = [...sockets.slice(1), eleventh]
    await Promise.all(others.map((socket) => socket.barrier()))
    expect(others.every(isOpen)).toBe(true)
  })

  it("caps a user at 50 sockets over both instances and all sessions", async () => {
    const phone = newPhone()
    const sessions: Array<SignedIn> = []
    for (let i = 0; i < 6; i++) sessions.push(await signIn(a, client(a), phone))
    const sockets: Array<WsClient> = []
    for (const [index, session] of sessions.slice(0, 5).entries()) {
      for (let i = 0; i < 10; i++) sockets.push(await on(index < 3 ? a : b, session.token))
    }
    await Promise.all(sockets.map((socket) => socket.barrier()))
    expect(sockets.every(isOpen)).toBe(true)

    const fiftyFirst = await on(b, sessions[5]!.token)
    expect(await sockets[0]!.closed).toEqual({ code: 4008, reason: "too many sockets" })
    const others = [...sockets.slice(1), fiftyFirst]
    await Promise.all(others.map((socket) => socket.barrier()))
    expect(others.every(isOpen)).toBe(true)
  })
})

/** Without REDIS_URL, online means a socket of the recipient subscribed on this instance. */
describe("one instance without Redis", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>
  let server: TestServer
  const adminPhone = newPhone()

  beforeAll(async () => {
    database = await createPostgresDatabase()
    server = await startServer({
      databaseUrl: database.url,
      settings: { ...relaxedLimits, adminPhoneNumbers: [adminPhone] }
    })
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  }, 60_000)

  it("talab sessions revoke on PostgreSQL without REDIS_URL says it cannot reach open sockets nor the session cache", async () => {
    const user = await signIn(server, client(server))
    const outcome = await Effect.runPromise(runCli(["sessions", "revoke", user.phone], { DATABASE_URL: database.url }))
    expect(outcome.code).toBe(0)
    expect(outcome.stdout).toEqual([
      `revoked 1 session of ${user.phone}`,
      "open WebSocket connections of those sessions stay open until they disconnect: no REDIS_URL to reach the servers",
      "a server running on this database sees the change within 30 s: no REDIS_URL to reach it"
    ])
  })

  it("talab admin grant on PostgreSQL without REDIS_URL says when the running server sees it", async () => {
    const user = await signIn(server, client(server))
    const outcome = await Effect.runPromise(runCli(["admin", "grant", user.phone], { DATABASE_URL: database.url }))
    expect(outcome).toMatchObject({
      code: 0,
      stdout: [
        `granted admin to ${user.phone}`,
        "a server running on this database sees the change within 30 s: no REDIS_URL to reach it"
      ]
    })
  })

  it("raises MessageSent with recipientOnline true only while the recipient's socket is subscribed", async () => {
    const m = new Marketplace(server, client(server), adminPhone)
    const scene = await chatScene(m)
    const sellerSocket = await connectAs(server.wsUrl, scene.seller.token)
    const before = await postMessage(m.api, scene.buyer, scene.conversationId, "not subscribed yet")
    await sellerSocket.subscribe(scene.conversationId)
    const during = await postMessage(m.api, scene.buyer, scene.conversationId, "subscribed")
    const own = await postMessage(m.api, scene.seller, scene.conversationId, "the seller's own")
    sellerSocket.close()
    await sellerSocket.closed
    const after = await postMessage(m.api, scene.buyer, scene.conversationId, "gone")
    expect(await recipientOnline(database.url, before.id)).toEqual([false])
    expect(await recipientOnline(database.url, during.id)).toEqual([true])
    expect(await recipientOnline(database.url, own.id)).toEqual([false]) // the buyer has no socket
    expect(await recipientOnline(database.url, after.id)).toEqual([false])
  })
})

const waitUntil = async (condition: () => Promise<boolean>, timeoutMs = 5_000) => {
  const started = Date.now()
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
