import * as Net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import {
  ARABIC,
  chatScene,
  ISO_UTC,
  Marketplace,
  marketplaceSettings,
  postMessage,
  UUID,
  unknownId
} from "../support/fixtures.js"
import { backends, client, newPhone, signIn, startServer, useServer } from "../support/harness.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { rawRequest } from "../support/raw-http.js"
import { connectAs, WsClient, type WsClientOptions } from "../support/ws-client.js"

/** The `/ws` protocol of decisions.md section 9, with real sockets against the real server. */
describe.each(backends)("WebSocket protocol on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone]))
  let shared: Marketplace | undefined
  const market = () => (shared ??= new Marketplace(server(), client(server()), adminPhone))
  const opened: Array<WsClient> = []
  const connect = async (options?: WsClientOptions) => {
    const socket = await WsClient.connect(server().wsUrl, options)
    opened.push(socket)
    return socket
  }
  const signedIn = async (token: string, conversations: ReadonlyArray<string> = [], options?: WsClientOptions) => {
    const socket = await connectAs(server().wsUrl, token, conversations, options)
    opened.push(socket)
    return socket
  }
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })
  const history = async (token: string, conversationId: string) =>
    (await market().api.get(`/conversations/${conversationId}/messages?limit=100`, { token })).body.data.messages

  describe("authentication", () => {
    it("answers auth_ok with the user's id for a valid access token", async () => {
      const user = await market().buyer()
      const socket = await connect()
      socket.send({ type: "auth", token: user.token })
      expect(await socket.next()).toEqual({ type: "auth_ok", user_id: user.userId })
    })

    it("answers UNAUTHORIZED to any frame before auth, keeps the socket open, and accepts auth after", async () => {
      const user = await market().buyer()
      const socket = await connect()
      for (const frame of [
        { type: "ping" },
        { type: "subscribe", channel: `conversation.${unknownId()}` },
        { type: "bogus" }
      ]) {
        socket.send(frame)
        expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      }
      socket.sendRaw("{not json")
      expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      expect(await socket.auth(user.token)).toEqual({ type: "auth_ok", user_id: user.userId })
      await socket.barrier()
    })

    it("refuses a bad token with an error, then closes with 4401", async () => {
      const user = await market().buyer()
      const tampered = `${user.token.slice(0, -4)}AAAA`
      for (const frame of [
        { type: "auth", token: "garbage" },
        { type: "auth", token: tampered },
        { type: "auth", token: user.refreshToken },
        { type: "auth" },
        { type: "auth", token: 42 }
      ]) {
        const socket = await connect()
        socket.send(frame)
        expect(await socket.next()).toEqual({
          type: "error",
          code: "UNAUTHORIZED",
          message: expect.stringMatching(ARABIC)
        })
        expect((await socket.closed).code).toBe(4401)
      }
    })

    it("refuses the token of a session that has logged out", async () => {
      const m = market()
      const user = await m.buyer()
      expect((await m.api.post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
      const socket = await connect()
      socket.send({ type: "auth", token: user.token })
      expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      expect((await socket.closed).code).toBe(4401)
    })

    it("closes a socket that has not authenticated within 10 seconds with an error and 4401", async () => {
      const socket = await connect()
      // The clock runs on in real time too: 8 s ahead plus a deadline check (every 0.5 s) stays short of 10 s.
      server().clock.advance(8_000)
      await new Promise((resolve) => setTimeout(resolve, 600))
      socket.send({ type: "ping" }) // still open: an unauthenticated frame only gets UNAUTHORIZED
      expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      server().clock.advance(2_001)
      expect((await socket.closed).code).toBe(4401)
      expect(socket.all("error")).toHaveLength(2)
    })

    it("answers a second auth frame with VALIDATION_ERROR and stays authenticated", async () => {
      const user = await market().buyer()
      const socket = await signedIn(user.token)
      socket.send({ type: "auth", token: user.token })
      expect(await socket.next()).toMatchObject({ type: "error", code: "VALIDATION_ERROR" })
      await socket.barrier()
    })

    it("writes error messages in the handshake's Accept-Language, else the user's language", async () => {
      const m = market()
      const user = await m.buyer()
      const english = await connect({ headers: { "accept-language": "en-US,en;q=0.9" } })
      english.send({ type: "ping" })
      expect((await english.next()).message).toBe("Authentication is required")
      await english.auth(user.token)
      english.send({ type: "nope" })
      expect((await english.next()).message).toBe("The data sent is not valid")

      await m.api.put("/users/me", { token: user.token, body: { language: "en" } })
      const byPreference = await signedIn(user.token)
      byPreference.send({ type: "nope" })
      expect((await byPreference.next()).message).toBe("The data sent is not valid")
    })

    it("writes error messages in the auth frame's language ahead of the handshake's and the user's", async () => {
      const m = market()
      const user = await m.buyer()
      const chosen = await connect({ headers: { "accept-language": "ar" } })
      chosen.send({ type: "auth", token: user.token, language: "en" })
      expect(await chosen.next()).toMatchObject({ type: "auth_ok" })
      chosen.send({ type: "nope" })
      expect((await chosen.next()).message).toBe("The data sent is not valid")

      const refused = await connect({ headers: { "accept-language": "ar" } })
      refused.send({ type: "auth", token: "not-a-token", language: "en" })
      expect(await refused.next()).toEqual({
        type: "error",
        code: "UNAUTHORIZED",
        message: "Authentication is required"
      })
      expect((await refused.closed).code).toBe(4401)

      const unknownLanguage = await connect()
      unknownLanguage.send({ type: "auth", token: user.token, language: "fr" })
      expect(await unknownLanguage.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      expect((await unknownLanguage.closed).code).toBe(4401)
    })
  })

  describe("subscriptions", () => {
    it("subscribes and unsubscribes a party; after unsubscribing nothing more arrives", async () => {
      const m = market()
      const scene = await chatScene(m)
      const channel = `conversation.${scene.conversationId}`
      const buyer = await signedIn(scene.buyer.token)
      buyer.send({ type: "unsubscribe", channel })
      expect(await buyer.next()).toEqual({ type: "unsubscribed", channel })
      buyer.send({ type: "subscribe", channel })
      expect(await buyer.next()).toEqual({ type: "subscribed", channel })
      buyer.send({ type: "subscribe", channel })
      expect(await buyer.next()).toEqual({ type: "subscribed", channel })

      await postMessage(m.api, scene.seller, scene.conversationId, "first")
      expect((await buyer.nextOfType("message")).data.message_text).toBe("first")
      expect(buyer.all("message")).toHaveLength(1) // subscribing twice does not deliver twice

      buyer.send({ type: "unsubscribe", channel })
      expect(await buyer.next()).toEqual({ type: "unsubscribed", channel })
      await postMessage(m.api, scene.seller, scene.conversationId, "second")
      await buyer.barrier()
      expect(buyer.all("message").map((f) => f.data.message_text)).toEqual(["first"])
    })

    it("answers FORBIDDEN to a non-party and delivers nothing to them", async () => {
      const m = market()
      const scene = await chatScene(m)
      const outsider = await m.buyer("Outsider")
      const socket = await signedIn(outsider.token)
      const channel = `conversation.${scene.conversationId}`
      socket.send({ type: "subscribe", channel })
      expect(await socket.next()).toEqual({ type: "error", code: "FORBIDDEN", message: expect.any(String), channel })

      const buyer = await signedIn(scene.buyer.token, [scene.conversationId])
      await postMessage(m.api, scene.seller, scene.conversationId, "private")
      await buyer.nextOfType("message")
      await socket.barrier()
      expect(socket.all("message")).toEqual([])
    })

    it("answers NOT_FOUND for an unknown conversation and VALIDATION_ERROR for a channel of another kind", async () => {
      const user = await market().buyer()
      const socket = await signedIn(user.token)
      const since = new Date()
      for (const channel of [`conversation.${unknownId()}`, "conversation.not-a-uuid", "conversation.' OR 1=1 --"]) {
        socket.send({ type: "subscribe", channel })
        expect(await socket.next()).toMatchObject({ type: "error", code: "NOT_FOUND", channel })
        socket.send({ type: "unsubscribe", channel })
        expect(await socket.next()).toEqual({ type: "unsubscribed", channel })
      }
      expect(server().logs.lines.filter((line) => line.at >= since && line.level === "ERROR")).toEqual([])
      for (const frame of [
        { type: "subscribe", channel: "requests.all" },
        { type: "subscribe", channel: "conversation." },
        { type: "subscribe" },
        { type: "unsubscribe", channel: "requests.all" }
      ]) {
        socket.send(frame)
        expect(await socket.next()).toMatchObject({ type: "error", code: "VALIDATION_ERROR" })
      }
      await socket.barrier()
    })
  })

  describe("messages", () => {
    it("stores a message frame, acks the sender and delivers to both parties and every device", async () => {
      const m = market()
      const scene = await chatScene(m)
      const buyerPhone = await signedIn(scene.buyer.token, [scene.conversationId])
      const buyerSecondSession = await signIn(server(), m.api, scene.buyer.phone)
      const buyerTablet = await signedIn(buyerSecondSession.token, [scene.conversationId])
      const seller = await signedIn(scene.seller.token, [scene.conversationId])

      seller.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "  Yes, available  ",
        client_id: "s-1"
      })
      const ack = await seller.nextOfType("ack")
      expect(ack).toEqual({
        type: "ack",
        client_id: "s-1",
        data: {
          id: expect.stringMatching(UUID),
          conversation_id: scene.conversationId,
          seq: 1,
          sender_id: scene.seller.userId,
          kind: "text",
          message_text: "Yes, available",
          masked: false,
          attachments: [],
          created_at: expect.stringMatching(ISO_UTC)
        }
      })
      const delivered = { type: "message", data: ack.data }
      expect(await buyerPhone.nextOfType("message")).toEqual(delivered)
      expect(await buyerTablet.nextOfType("message")).toEqual(delivered)
      expect(await seller.nextOfType("message")).toEqual(delivered)
      expect(seller.frames.map((f) => f.type).slice(-2)).toEqual(["ack", "message"]) // the ack comes first

      const stored = await history(scene.buyer.token, scene.conversationId)
      expect(stored.map((x) => ({ id: x.id, text: x.message_text }))).toEqual([
        { id: ack.data.id, text: "Yes, available" }
      ])
    })

    it("handles a socket's frames one after the other, in the order sent, however fast they come", async () => {
      const m = market()
      const scene = await chatScene(m)
      const seller = await signedIn(scene.seller.token)
      // Sent back to back without waiting: the subscribe is done before the first message, each message is
      // stored and acked before the next, and the ping is answered after the last ack.
      seller.send({ type: "subscribe", channel: `conversation.${scene.conversationId}` })
      for (let n = 1; n <= 12; n++) {
        seller.send({
          type: "message",
          conversation_id: scene.conversationId,
          message_text: `burst ${n}`,
          client_id: `b-${n}`
        })
      }
      seller.send({ type: "ping" })
      await seller.nextOfType("pong", 15_000)
      const answers = seller.frames.filter((f) => f.type !== "message")
      expect(answers.map((f) => (f.type === "ack" ? f.client_id : f.type))).toEqual([
        "auth_ok",
        "subscribed",
        ...Array.from({ length: 12 }, (_, k) => `b-${k + 1}`),
        "pong"
      ])
      expect(answers.filter((f) => f.type === "ack").map((f) => f.data.seq)).toEqual(
        Array.from({ length: 12 }, (_, k) => k + 1)
      )
      // Subscribed before the first message was stored: every one is delivered to the sender's socket too.
      for (let n = 1; n <= 12; n++) await seller.next((f) => f.type === "message" && f.data.seq === n)
    })

    it("acks with client_id null when none is given, and stores without a subscription", async () => {
      const m = market()
      const scene = await chatScene(m)
      const buyer = await signedIn(scene.buyer.token)
      buyer.send({ type: "message", conversation_id: scene.conversationId, message_text: "hello" })
      const ack = await buyer.nextOfType("ack")
      expect(ack.client_id).toBeNull()
      await buyer.barrier()
      expect(buyer.all("message")).toEqual([])
      expect((await history(scene.seller.token, scene.conversationId)).map((x) => x.id)).toEqual([ack.data.id])
    })

    it("delivers a REST POST to every subscribed socket", async () => {
      const m = market()
      const scene = await chatScene(m)
      const buyer = await signedIn(scene.buyer.token, [scene.conversationId])
      const seller = await signedIn(scene.seller.token, [scene.conversationId])
      const sent = await postMessage(m.api, scene.buyer, scene.conversationId, "over REST")
      expect(await seller.nextOfType("message")).toEqual({ type: "message", data: sent })
      expect(await buyer.nextOfType("message")).toEqual({ type: "message", data: sent })
    })

    it("stores one message for a client_id sent twice; both acks carry it and it is delivered once", async () => {
      const m = market()
      const scene = await chatScene(m)
      const seller = await signedIn(scene.seller.token, [scene.conversationId])
      const buyer = await signedIn(scene.buyer.token, [scene.conversationId])
      const frame = {
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "only once",
        client_id: "retry-7"
      }
      seller.send(frame)
      const first = await seller.nextOfType("ack")
      seller.send({ ...frame, message_text: "only once (retried)" })
      const second = await seller.nextOfType("ack")
      expect(second).toEqual(first)

      seller.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "after",
        client_id: "retry-8"
      })
      await seller.nextOfType("ack")
      const texts = [
        (await buyer.nextOfType("message")).data.message_text,
        (await buyer.nextOfType("message")).data.message_text
      ]
      expect(texts).toEqual(["only once", "after"])
      await buyer.barrier()
      expect(buyer.all("message")).toHaveLength(2)
      expect((await history(scene.buyer.token, scene.conversationId)).map((x) => x.message_text)).toEqual([
        "after",
        "only once"
      ])
    })

    it("pushes a message only to a recipient with no socket subscribed to the conversation", async () => {
      const m = market()
      const scene = await chatScene(m)
      const device = `chat-device-${scene.conversationId}`
      expect(
        (
          await m.api.post("/device-tokens", {
            token: scene.buyer.token,
            body: { platform: "android", push_token: device }
          })
        ).status
      ).toBe(201)
      const buyer = await signedIn(scene.buyer.token, [scene.conversationId])
      const seller = await signedIn(scene.seller.token, [scene.conversationId])

      seller.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "while you are here",
        client_id: "p-1"
      })
      await buyer.nextOfType("message")
      buyer.send({ type: "unsubscribe", channel: `conversation.${scene.conversationId}` })
      await buyer.nextOfType("unsubscribed")
      seller.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "after you left",
        client_id: "p-2"
      })
      await seller.nextOfType("ack")
      await seller.nextOfType("ack")

      await server().pushes.waitFor((push) => push.pushToken === device && push.body === "after you left")
      const messagePushes = server()
        .pushes.to(scene.buyer.userId)
        .filter((push) => push.type === "message")
      expect(messagePushes.map((push) => push.body)).toEqual(["after you left"])
      expect(messagePushes[0]!.data).toEqual({ conversation_id: scene.conversationId })
      expect(
        server()
          .pushes.to(scene.seller.userId)
          .filter((push) => push.type === "message")
      ).toEqual([])
    })

    it("answers NOT_FOUND and FORBIDDEN to message frames for unknown or foreign conversations, storing nothing", async () => {
      const m = market()
      const scene = await chatScene(m)
      const outsider = await m.buyer("Outsider")
      const socket = await signedIn(outsider.token)
      socket.send({ type: "message", conversation_id: unknownId(), message_text: "hi", client_id: "x-1" })
      expect(await socket.next()).toEqual({
        type: "error",
        code: "NOT_FOUND",
        message: expect.any(String),
        client_id: "x-1"
      })
      socket.send({ type: "message", conversation_id: scene.conversationId, message_text: "hi", client_id: "x-2" })
      expect(await socket.next()).toMatchObject({ type: "error", code: "FORBIDDEN", client_id: "x-2" })
      expect(await history(scene.buyer.token, scene.conversationId)).toEqual([])
    })

    it("answers a message frame whose conversation_id is not a UUID NOT_FOUND, like an unknown one, logging no error", async () => {
      const m = market()
      const scene = await chatScene(m)
      const socket = await signedIn(scene.buyer.token)
      const since = new Date()
      for (const conversationId of ["not-a-uuid", `${scene.conversationId}x`, "' OR 1=1 --"]) {
        socket.send({ type: "message", conversation_id: conversationId, message_text: "hi", client_id: "n-1" })
        expect(await socket.next()).toEqual({
          type: "error",
          code: "NOT_FOUND",
          message: expect.any(String),
          client_id: "n-1"
        })
      }
      socket.send({ type: "message", conversation_id: "not-a-uuid", message_text: "   ", client_id: "n-2" })
      expect(await socket.next()).toMatchObject({ type: "error", code: "VALIDATION_ERROR", client_id: "n-2" })
      expect(await history(scene.buyer.token, scene.conversationId)).toEqual([])
      expect(server().logs.lines.filter((line) => line.at >= since && line.level === "ERROR")).toEqual([])
    })

    it("refuses text over 4000 characters or empty after trimming with VALIDATION_ERROR, storing nothing", async () => {
      const m = market()
      const scene = await chatScene(m)
      const socket = await signedIn(scene.buyer.token)
      const message = (text: unknown) => ({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: text,
        client_id: "v"
      })
      for (const text of ["x".repeat(4001), "   ", 12, undefined]) {
        socket.send(message(text))
        const error = await socket.next()
        expect(error).toMatchObject({ type: "error", code: "VALIDATION_ERROR", client_id: "v" })
        expect(Object.keys(error.details)).toEqual(["message_text"])
      }
      socket.send({ type: "message", message_text: "no conversation" })
      expect((await socket.next()).details).toHaveProperty("conversation_id")
      expect(await history(scene.buyer.token, scene.conversationId)).toEqual([])
      socket.send(message("x".repeat(4000)))
      expect((await socket.nextOfType("ack")).data.message_text).toHaveLength(4000)
    })
  })

  describe("frames and the socket", () => {
    it("answers ping with pong", async () => {
      const user = await market().buyer()
      const socket = await signedIn(user.token)
      socket.send({ type: "ping" })
      expect(await socket.next()).toEqual({ type: "pong" })
    })

    it("answers malformed JSON, an unknown type or a binary frame with VALIDATION_ERROR and stays open", async () => {
      const user = await market().buyer()
      const socket = await signedIn(user.token)
      for (const raw of [
        "{oops",
        "[]",
        "42",
        "null",
        JSON.stringify({ type: "dance" }),
        JSON.stringify({ kind: "ping" })
      ]) {
        socket.sendRaw(raw)
        expect(await socket.next()).toEqual({ type: "error", code: "VALIDATION_ERROR", message: expect.any(String) })
      }
      socket.sendRaw(Buffer.from(JSON.stringify({ type: "ping" })))
      expect(await socket.next()).toMatchObject({ type: "error", code: "VALIDATION_ERROR" })
      await socket.barrier()
    })

    it("closes the socket with 1009 on a frame over 16 KiB, before any authentication", async () => {
      const user = await market().buyer()
      const authed = await signedIn(user.token)
      authed.sendRaw(JSON.stringify({ type: "ping", pad: "x".repeat(16 * 1024) }))
      expect((await authed.closed).code).toBe(1009)

      const anonymous = await connect()
      anonymous.sendRaw("x".repeat(16 * 1024 + 1))
      expect((await anonymous.closed).code).toBe(1009)

      const atLimit = await signedIn(user.token)
      const padded = JSON.stringify({ type: "ping", pad: "" })
      atLimit.sendRaw(JSON.stringify({ type: "ping", pad: "x".repeat(16 * 1024 - padded.length) }))
      expect(await atLimit.next()).toEqual({ type: "pong" })
    })

    it("rate-limits message frames per user across devices: the frame over the limit is dropped, the socket stays open", async () => {
      const m = market()
      const scene = await chatScene(m)
      const phone = await signedIn(scene.buyer.token)
      const tablet = await signedIn((await signIn(server(), m.api, scene.buyer.phone)).token)
      for (let i = 0; i < 49; i++) {
        const socket = i % 2 ? tablet : phone
        socket.send({
          type: "message",
          conversation_id: scene.conversationId,
          message_text: `m${i}`,
          client_id: `c${i}`
        })
        await socket.nextOfType("ack")
      }
      // An invalid message frame counts too.
      phone.send({ type: "message", conversation_id: scene.conversationId, message_text: "", client_id: "c49" })
      expect(await phone.next()).toMatchObject({ type: "error", code: "VALIDATION_ERROR", client_id: "c49" })
      phone.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "one too many",
        client_id: "c50"
      })
      expect(await phone.next()).toEqual({
        type: "error",
        code: "RATE_LIMITED",
        message: expect.any(String),
        client_id: "c50"
      })
      tablet.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "also too many",
        client_id: "c51"
      })
      expect(await tablet.next()).toMatchObject({ type: "error", code: "RATE_LIMITED" })
      await phone.barrier()
      const stored = await history(scene.buyer.token, scene.conversationId)
      expect(stored).toHaveLength(49)
      expect(stored.map((x) => x.message_text)).not.toContain("one too many")

      // Other users are not affected, and a minute later the buyer may send again.
      const seller = await signedIn(scene.seller.token)
      seller.send({ type: "message", conversation_id: scene.conversationId, message_text: "seller ok", client_id: "s" })
      expect((await seller.nextOfType("ack")).data.message_text).toBe("seller ok")
      server().clock.advance(60_000)
      phone.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "next minute",
        client_id: "c52"
      })
      expect((await phone.nextOfType("ack")).data.message_text).toBe("next minute")
    })

    it("closes the sockets of a session that logs out with 4401, and only those", async () => {
      const m = market()
      const user = await m.buyer()
      const other = await signIn(server(), m.api, user.phone)
      const first = await signedIn(user.token)
      const secondOfSession = await signedIn(user.token)
      const otherSession = await signedIn(other.token)
      expect((await m.api.post("/auth/logout", { token: user.token, body: {} })).status).toBe(200)
      expect((await first.closed).code).toBe(4401)
      expect((await secondOfSession.closed).code).toBe(4401)
      expect(first.all("error")).toEqual([expect.objectContaining({ code: "UNAUTHORIZED" })])
      await otherSession.barrier()
    })

    it("pings every 30 seconds and cuts off a socket that did not answer the previous ping", async () => {
      const user = await market().buyer()
      // A heartbeat now, so the next one is the test's own (heartbeats are 30 s apart by the clock).
      server().clock.advance(30_000)
      await new Promise((resolve) => setTimeout(resolve, 600))
      const dead = await signedIn(user.token, [], { autoPong: false })
      const alive = await signedIn(user.token)
      expect([dead.pings.length, alive.pings.length]).toEqual([0, 0])
      server().clock.advance(30_000)
      await waitFor(() => dead.pings.length >= 1 && alive.pings.length >= 1)
      expect(dead.ws.readyState).toBe(dead.ws.OPEN) // one unanswered ping is not yet fatal
      const pingsBefore = alive.pings.length
      server().clock.advance(30_000)
      expect((await dead.closed).code).toBe(1006)
      await waitFor(() => alive.pings.length > pingsBefore)
      await alive.barrier()
    })

    it("keeps delivering to everyone while one subscriber stops reading", async () => {
      const m = market()
      const scene = await chatScene(m)
      const stalled = await signedIn(scene.buyer.token, [scene.conversationId])
      ;(stalled.ws as any)._socket.pause()
      const reader = await signedIn(scene.buyer.token, [scene.conversationId])
      const seller = await signedIn(scene.seller.token, [scene.conversationId])
      const text = "ب".repeat(3990)
      const started = Date.now()
      for (let i = 0; i < 40; i++) {
        seller.send({
          type: "message",
          conversation_id: scene.conversationId,
          message_text: `${i} ${text}`,
          client_id: `slow-${i}`
        })
        await reader.nextOfType("message")
      }
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(reader.all("message")).toHaveLength(40)
    })

    it("answers a plain GET /ws (no upgrade) with 426 UPGRADE_REQUIRED", async () => {
      const response = await fetch(`${server().baseUrl}/ws`, { headers: { "accept-language": "en" } })
      expect(response.status).toBe(426)
      expect(response.headers.get("upgrade")).toBe("websocket")
      expect(await response.json()).toEqual({
        success: false,
        error: { code: "UPGRADE_REQUIRED", message: "This address only accepts WebSocket connections", details: {} }
      })
    })

    it("answers 426 to an Upgrade header without Connection: upgrade, which Node serves as plain HTTP", async () => {
      const response = await rawRequest(server().baseUrl, "GET", "/ws", {
        headers: { ...handshakeHeaders, connection: "keep-alive", "accept-language": "en" }
      })
      expect(response.status).toBe(426)
      expect(response.body).toMatchObject({ success: false, error: { code: "UPGRADE_REQUIRED" } })
    })

    it("writes nothing into the socket after the 101 but WebSocket frames: the HTTP layer's own answer never lands there", async () => {
      const url = new URL(server().wsUrl)
      const socket = Net.connect(Number(url.port), url.hostname)
      const received: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => received.push(chunk))
      await new Promise((resolve) => socket.once("connect", resolve))
      const headers = Object.entries({ host: url.host, connection: "Upgrade", ...handshakeHeaders })
      socket.write(`GET /ws HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`)
      await waitFor(() => Buffer.concat(received).includes("\r\n\r\n"))
      // Long enough for the route to have returned and the platform to have answered, were it to.
      await new Promise((resolve) => setTimeout(resolve, 300))
      socket.write(maskedTextFrame(JSON.stringify({ type: "ping" })))
      await waitFor(() => Buffer.concat(received).includes("UNAUTHORIZED"))
      const bytes = Buffer.concat(received)
      const afterHandshake = bytes.subarray(bytes.indexOf("\r\n\r\n") + 4)
      expect(bytes.subarray(0, 12).toString()).toBe("HTTP/1.1 101")
      // One unmasked text frame, its length under 126 in the second byte, and nothing else.
      expect(afterHandshake[0]).toBe(0x81)
      expect(afterHandshake.length).toBe(2 + afterHandshake[1]!)
      expect(JSON.parse(afterHandshake.subarray(2).toString())).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      socket.destroy()
    })

    it("accepts any browser Origin while CORS_ORIGINS is *", async () => {
      const user = await market().buyer()
      const socket = await connect({ headers: { origin: "https://anything.example" } })
      expect(await socket.auth(user.token)).toMatchObject({ type: "auth_ok" })
    })
  })
})

describe.each(backends)("WebSocket handshake with CORS_ORIGINS on %s", (backend) => {
  const server = useServer(backend, {
    settings: { corsOrigins: ["https://app.talab.example", "https://admin.talab.example"] }
  })

  it("refuses a browser Origin that is not listed, and lets listed origins and origin-less clients in", async () => {
    const refused = await WsClient.connect(server().wsUrl, { headers: { origin: "https://evil.example" } }).catch(
      (e) => e
    )
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: { code: "FORBIDDEN" } })

    for (const options of [
      { headers: { origin: "https://app.talab.example" } },
      { headers: { origin: "https://ADMIN.talab.example" } },
      {}
    ]) {
      const socket = await WsClient.connect(server().wsUrl, options)
      socket.send({ type: "ping" })
      expect(await socket.next()).toMatchObject({ type: "error", code: "UNAUTHORIZED" })
      socket.close()
    }
  })
})

describe.each(backends)("WebSocket shutdown on %s", (backend) => {
  it("closes every open socket with 1001 when the server stops, promptly", async () => {
    const database = backend === "postgres" ? await createPostgresDatabase() : undefined
    const server = await startServer(database ? { databaseUrl: database.url } : {})
    try {
      const user = await signIn(server, client(server))
      const authenticated = await connectAs(server.wsUrl, user.token)
      const anonymous = await WsClient.connect(server.wsUrl)
      const rejected = await WsClient.connect(server.wsUrl)
      rejected.send({ type: "auth", token: "bad" })
      expect((await rejected.closed).code).toBe(4401)
      const started = Date.now()
      await server.close()
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(await authenticated.closed).toEqual({ code: 1001, reason: "server shutting down" })
      expect((await anonymous.closed).code).toBe(1001)
    } finally {
      await database?.drop()
    }
  })
})

describe.each(backends)("WebSocket shutdown with a client that stopped reading, on %s", (backend) => {
  it("cuts a socket whose client started the close and stopped reading, rather than wait for it (ws waits 30 s)", async () => {
    const database = backend === "postgres" ? await createPostgresDatabase() : undefined
    const server = await startServer(database ? { databaseUrl: database.url } : {})
    const user = await signIn(server, client(server))
    const stalled = await connectAs(server.wsUrl, user.token)
    try {
      // The client's close frame reaches the server, whose answer is never read: the server's socket is closing.
      ;(stalled.ws as any)._socket.pause()
      stalled.ws.close(1000)
      await new Promise((resolve) => setTimeout(resolve, 200))
      const started = Date.now()
      await server.close()
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      stalled.ws.terminate()
      await database?.drop()
    }
  })
})

describe.each(backends)("WebSocket session end on %s", (backend) => {
  const server = useServer(backend)

  it("keeps a socket open past its access token's 24 hours, and closes it with 4401 when the session expires (30 days)", async () => {
    const user = await signIn(server(), client(server()))
    const socket = await connectAs(server().wsUrl, user.token)
    server().clock.advance(25 * 3600 * 1000)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await socket.barrier()
    server().clock.advance(30 * 24 * 3600 * 1000 - 25 * 3600 * 1000 - 5_000)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await socket.barrier()
    server().clock.advance(5_001)
    expect((await socket.closed).code).toBe(4401)
  })
})

const waitFor = async (condition: () => boolean, timeoutMs = 5_000) => {
  const started = Date.now()
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const handshakeHeaders = {
  upgrade: "websocket",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  "sec-websocket-version": "13"
}

/** A client's text frame, masked as RFC 6455 requires, of under 126 bytes. */
const maskedTextFrame = (text: string) => {
  const payload = Buffer.from(text)
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78])
  return Buffer.concat([
    Buffer.from([0x81, 0x80 | payload.length]),
    mask,
    payload.map((byte, i) => byte ^ mask[i % 4]!)
  ])
}
