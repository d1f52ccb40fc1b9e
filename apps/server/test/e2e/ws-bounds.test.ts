import { afterEach, describe, expect, it } from "vitest"
import { expectStatus, Marketplace, type PostedOffer, unknownId } from "../support/fixtures.js"
import { backends, client, newPhone, type SignedIn, signIn, useServer } from "../support/harness.js"
import { connectAs, WsClient } from "../support/ws-client.js"

const API_PER_MINUTE = 150
const HANDSHAKES_PER_MINUTE = 5
const A_MINUTE_AND_MORE = 61_000

let ipCounter = 0
/** A fresh client address per call: behind the trusted proxy the last X-Forwarded-For hop is the client. */
const freshIp = () => {
  ipCounter += 1
  return `198.51.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`
}

/** The WebSocket bounds, so one client cannot exhaust the server: sockets per session and per user, handshakes,
 * subscriptions. */
describe.each(backends)("WebSocket bounds on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, {
    settings: {
      adminPhoneNumbers: [adminPhone],
      trustProxy: true,
      rateLimits: {
        authPerMinute: 10_000,
        otpPer10Minutes: 100,
        apiPerMinute: API_PER_MINUTE,
        wsMessagesPerMinute: 50,
        wsHandshakesPerMinute: HANDSHAKES_PER_MINUTE
      }
    }
  })
  let shared: Marketplace | undefined
  const market = () => (shared ??= new Marketplace(server(), client(server()), adminPhone))
  const opened: Array<WsClient> = []
  /** A signed-in socket from an address of its own, so the per-IP handshake limit stays out of the way. */
  const socketOf = async (token: string, ip = freshIp()) => {
    const socket = await connectAs(server().wsUrl, token, [], { headers: { "x-forwarded-for": ip } })
    opened.push(socket)
    return socket
  }
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })
  const isOpen = (socket: WsClient) => socket.ws.readyState === socket.ws.OPEN

  describe("sockets per session and per user", () => {
    it("closes the oldest socket of a session with 4008 when an 11th authenticates", async () => {
      const phone = newPhone()
      const api = client(server())
      const otherSession = await signIn(server(), api, phone)
      const session = await signIn(server(), api, phone)
      const ofOtherSession = await socketOf(otherSession.token)
      const sockets: Array<WsClient> = []
      for (let i = 0; i < 10; i++) sockets.push(await socketOf(session.token))
      await Promise.all(sockets.map((socket) => socket.barrier()))
      expect(sockets.every(isOpen)).toBe(true)

      const eleventh = await socketOf(session.token)
      expect(await sockets[0]!.closed).toEqual({ code: 4008, reason: "too many sockets" })
      await Promise.all([...sockets.slice(1), eleventh, ofOtherSession].map((socket) => socket.barrier()))
      expect([...sockets.slice(1), eleventh, ofOtherSession].every(isOpen)).toBe(true)
    })

    it("closes the user's oldest socket with 4008 when a 51st authenticates, whatever its session", async () => {
      const phone = newPhone()
      const api = client(server())
      const sessions: Array<SignedIn> = []
      for (let i = 0; i < 6; i++) sessions.push(await signIn(server(), api, phone))
      const sockets: Array<WsClient> = []
      for (const session of sessions.slice(0, 5)) {
        for (let i = 0; i < 10; i++) sockets.push(await socketOf(session.token))
      }
      await Promise.all(sockets.map((socket) => socket.barrier()))
      expect(sockets.every(isOpen)).toBe(true)

      const fiftyFirst = await socketOf(sessions[5]!.token)
      expect(await sockets[0]!.closed).toEqual({ code: 4008, reason: "too many sockets" })
      const others = [...sockets.slice(1), fiftyFirst]
      await Promise.all(others.map((socket) => socket.barrier()))
      expect(others.every(isOpen)).toBe(true)
    })
  })

  describe("handshakes per IP", () => {
    it("answers 429 RATE_LIMITED to upgrades over the per-IP limit, before any socket opens", async () => {
      const ip = freshIp()
      const headers = { "x-forwarded-for": ip }
      for (let i = 0; i < HANDSHAKES_PER_MINUTE; i++) {
        const socket = await WsClient.connect(server().wsUrl, { headers })
        opened.push(socket)
      }
      const refused = await WsClient.connect(server().wsUrl, { headers }).then(
        () => undefined,
        (error: { status: number; body: string; headers: Record<string, string> }) => error
      )
      expect(refused?.status).toBe(429)
      expect(JSON.parse(refused!.body)).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } })
      expect(Number(refused!.headers["retry-after"])).toBeGreaterThan(0)
      expect(refused!.headers["ratelimit-limit"]).toBe(String(HANDSHAKES_PER_MINUTE))

      // Another address has its own budget; this one has a new one a minute later.
      opened.push(await WsClient.connect(server().wsUrl, { headers: { "x-forwarded-for": freshIp() } }))
      server().clock.advance(A_MINUTE_AND_MORE)
      opened.push(await WsClient.connect(server().wsUrl, { headers }))
    })
  })

  describe("handshakes per network", () => {
    it("counts every address of one IPv6 /64 as one client", async () => {
      ipCounter += 1
      const prefix = `2001:db8:5:${ipCounter.toString(16)}`
      const addressOf = (i: number) => `${prefix}:${(i * 7919).toString(16)}:${(i + 1).toString(16)}::${i + 2}`
      for (let i = 0; i < HANDSHAKES_PER_MINUTE; i++) {
        opened.push(await WsClient.connect(server().wsUrl, { headers: { "x-forwarded-for": addressOf(i) } }))
      }
      const refused = await WsClient.connect(server().wsUrl, {
        headers: { "x-forwarded-for": addressOf(HANDSHAKES_PER_MINUTE) }
      }).then(
        (socket) => {
          opened.push(socket)
          return undefined
        },
        (error: { status: number; body: string }) => error
      )
      expect(refused?.status).toBe(429)
      expect(JSON.parse(refused!.body)).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } })
    })

    it("counts an IPv4 address and its IPv4-mapped spelling as one client", async () => {
      const ip = freshIp()
      for (let i = 0; i < HANDSHAKES_PER_MINUTE; i++) {
        const written = i % 2 === 0 ? ip : `::ffff:${ip}`
        opened.push(await WsClient.connect(server().wsUrl, { headers: { "x-forwarded-for": written } }))
      }
      const refused = await WsClient.connect(server().wsUrl, { headers: { "x-forwarded-for": `::ffff:${ip}` } }).then(
        (socket) => {
          opened.push(socket)
          return undefined
        },
        (error: { status: number }) => error
      )
      expect(refused?.status).toBe(429)
    })
  })

  describe("subscribe and unsubscribe frames", () => {
    it("count against the user's REST budget; over it they answer RATE_LIMITED and the socket stays open", async () => {
      const m = market()
      server().clock.advance(A_MINUTE_AND_MORE)
      const user = await m.buyer()
      const socket = await socketOf(user.token)
      const remaining = async () =>
        Number((await m.api.get("/users/me", { token: user.token })).headers.get("ratelimit-remaining"))

      const before = await remaining()
      const channel = `conversation.${unknownId()}`
      for (let i = 0; i < 3; i++) {
        socket.send({ type: "subscribe", channel })
        expect(await socket.next()).toMatchObject({ type: "error", code: "NOT_FOUND", channel })
      }
      socket.send({ type: "unsubscribe", channel })
      expect(await socket.next()).toEqual({ type: "unsubscribed", channel })
      expect(await remaining()).toBe(before - 4 - 1)

      const left = await remaining()
      await Promise.all(Array.from({ length: left }, () => m.api.get("/users/me", { token: user.token })))
      expect((await m.api.get("/users/me", { token: user.token })).status).toBe(429)

      socket.send({ type: "subscribe", channel })
      expect(await socket.next()).toMatchObject({ type: "error", code: "RATE_LIMITED", channel })
      socket.send({ type: "unsubscribe", channel })
      expect(await socket.next()).toMatchObject({ type: "error", code: "RATE_LIMITED", channel })
      await socket.barrier()
      expect(isOpen(socket)).toBe(true)

      server().clock.advance(A_MINUTE_AND_MORE)
      socket.send({ type: "subscribe", channel })
      expect(await socket.next()).toMatchObject({ type: "error", code: "NOT_FOUND", channel })
    })
  })

  describe("subscriptions per socket", () => {
    it("refuses the 101st subscription of one socket with VALIDATION_ERROR naming the channel", async () => {
      const m = market()
      const buyer = await m.buyer()
      const seller = await m.approvedSeller()
      const offers: Array<PostedOffer> = []
      for (let batch = 0; batch < 10; batch++) {
        offers.push(
          ...(await Promise.all(
            Array.from({ length: 10 + (batch === 9 ? 1 : 0) }, async () => (await m.pendingOffer(buyer, seller)).offer)
          ))
        )
      }
      const conversations: Array<string> = []
      for (let page = 1; conversations.length < offers.length; page++) {
        const list = expectStatus(
          await m.api.get(`/conversations/my?per_page=50&page=${page}`, { token: buyer.token }),
          200,
          "GET /conversations/my"
        )
        if (list.data.conversations.length === 0) break
        conversations.push(...list.data.conversations.map((c) => c.id))
      }
      expect(conversations).toHaveLength(101)
      server().clock.advance(A_MINUTE_AND_MORE) // a fresh API budget for the frames

      const socket = await socketOf(buyer.token)
      for (const id of conversations.slice(0, 100)) {
        expect(await socket.subscribe(id)).toEqual({ type: "subscribed", channel: `conversation.${id}` })
      }
      const last = `conversation.${conversations[100]}`
      socket.send({ type: "subscribe", channel: last })
      const refused = await socket.next()
      expect(refused).toMatchObject({ type: "error", code: "VALIDATION_ERROR", channel: last })
      expect(refused.details.channel[0]).toMatch(/100/)
      // Subscribing again to one it has is no new subscription; after leaving one, the 101st fits.
      expect(await socket.subscribe(conversations[0]!)).toMatchObject({ type: "subscribed" })
      socket.send({ type: "unsubscribe", channel: `conversation.${conversations[0]}` })
      expect(await socket.nextOfType("unsubscribed")).toBeDefined()
      expect(await socket.subscribe(conversations[100]!)).toEqual({ type: "subscribed", channel: last })
      expect(isOpen(socket)).toBe(true)
      // 101 requests and offers made through the API first: over 400 calls, which a loaded machine needs more
      // than the default 30 s for.
    }, 120_000)
  })
})
