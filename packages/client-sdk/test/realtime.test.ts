import { afterEach, describe, expect, it } from "vitest"
import { WebSocket as NodeWebSocket } from "ws"
import {
  type ChatMessage,
  isRealtimeError,
  isTalabApiError,
  type RealtimeClient,
  RealtimeError,
  type TalabApiError,
  type TalabClient,
  type WebSocketConstructor,
  type WebSocketLike
} from "../src/index.js"
import { startFlakyProxy } from "./proxy.js"
import {
  approvedSeller,
  countingFetch,
  eventually,
  PAST_ACCESS_TOKEN_LIFETIME,
  PNG,
  postRequest,
  signedInClient,
  useTestServer
} from "./support.js"

const fastReconnect = { initialDelayMs: 20, maxDelayMs: 200 }

/** Posts a message over REST as the user of `talab`; answers the stored message. */
const postMessage = async (talab: TalabClient, conversationId: string, text: string) =>
  (
    await talab.POST("/conversations/{id}/messages", {
      params: { path: { id: conversationId } },
      body: { message_text: text }
    })
  ).data

/**
 * A WebSocket (the `ws` package's) whose incoming frames pass through `tamper`, which hands each on with
 * `pass()`, later, or never: a network or a cluster that reorders or loses a delivery.
 */
const tamperedWebSocket = (tamper: (frame: any, pass: () => void) => void): WebSocketConstructor =>
  class {
    onopen: ((event: any) => void) | null = null
    onmessage: ((event: { readonly data: unknown }) => void) | null = null
    onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null = null
    onerror: ((event: any) => void) | null = null
    private readonly inner: WebSocketLike
    constructor(url: string) {
      this.inner = new NodeWebSocket(url) as unknown as WebSocketLike
      this.inner.onopen = (event) => this.onopen?.(event)
      this.inner.onclose = (event) => this.onclose?.(event)
      this.inner.onerror = (event) => this.onerror?.(event)
      this.inner.onmessage = (event) => tamper(JSON.parse(String(event.data)), () => this.onmessage?.(event))
    }
    get readyState() {
      return this.inner.readyState
    }
    send(data: string) {
      this.inner.send(data)
    }
    close(code?: number, reason?: string) {
      this.inner.close(code, reason)
    }
  }

/** Every message a realtime client emitted, in order. */
const recorder = (live: RealtimeClient) => {
  const messages: Array<ChatMessage> = []
  live.on("message", (message) => messages.push(message))
  return { messages, texts: () => messages.map((m) => m.message_text) }
}

describe("realtime chat", () => {
  const server = useTestServer()
  const opened: Array<RealtimeClient> = []
  const closers: Array<() => Promise<void>> = []
  const realtime = (talab: TalabClient, options: Parameters<TalabClient["realtime"]>[0] = {}) => {
    const live = talab.realtime({ reconnect: fastReconnect, ...options })
    opened.push(live)
    return live
  }
  afterEach(async () => {
    for (const live of opened.splice(0)) live.dispose()
    for (const close of closers.splice(0)) await close()
  })

  /** A buyer's request, an approved seller's offer on it, and the conversation the offer opened. */
  const negotiation = async () => {
    const buyer = await signedInClient(server())
    const seller = await approvedSeller(server())
    const request = await postRequest(buyer.talab)
    const { data: offer } = await seller.talab.POST("/offers", {
      body: { request_id: request.id, price: 3200, availability: "today, Al Rawdah", warranty_notes: "6 months" }
    })
    const { data: mine } = await buyer.talab.GET("/conversations/my")
    const conversation = mine.conversations.find((c) => c.offer_id === offer.id)
    if (!conversation) throw new Error("the offer opened no conversation")
    return { buyer, seller, request, offer, conversationId: conversation.id }
  }

  it("sends photos over the WebSocket: the ack and the other party's delivery carry them, in order", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const buyerLive = realtime(buyer.talab)
    const sellerLive = realtime(seller.talab)
    const buyerSaw = recorder(buyerLive)
    await Promise.all([buyerLive.connect(), sellerLive.connect()])
    await Promise.all([buyerLive.subscribe(conversationId), sellerLive.subscribe(conversationId)])
    const back = await seller.talab.uploadImage(PNG, "back.png")
    const front = await seller.talab.uploadImage(new Blob([PNG], { type: "image/png" }), "front.png")

    const sent = await sellerLive.send(conversationId, "", { attachmentIds: [back.id, front.id] })
    expect(sent.message_text).toBe("")
    expect(sent.attachments.map((photo) => photo.id)).toEqual([back.id, front.id])
    await eventually(() => buyerSaw.messages.length === 1, 20_000, "the buyer to receive the photos")
    expect(buyerSaw.messages[0]!.attachments.map((photo) => photo.id)).toEqual([back.id, front.id])
    expect((await fetch(buyerSaw.messages[0]!.attachments[0]!.thumbnail_url)).status).toBe(200)

    // An image is attached once: sent again, it is refused with the field named, and nothing is stored.
    const again = await sellerLive.send(conversationId, "again", { attachmentIds: [back.id] }).catch((e: unknown) => e)
    expect(again).toMatchObject({ code: "VALIDATION_ERROR" })
    expect(Object.keys((again as { details: Record<string, unknown> }).details)).toEqual(["attachment_ids"])
  })

  it("a full deal: request, offer, chat over the WebSocket with acks, accept, complete", async () => {
    const { buyer, seller, offer, conversationId } = await negotiation()
    const buyerLive = realtime(buyer.talab)
    const sellerLive = realtime(seller.talab)
    const buyerSaw = recorder(buyerLive)
    const sellerSaw = recorder(sellerLive)
    await Promise.all([buyerLive.connect(), sellerLive.connect()])
    expect(buyerLive.state).toBe("open")
    expect(buyerLive.userId).toBe(buyer.userId)
    await Promise.all([buyerLive.subscribe(conversationId), sellerLive.subscribe(conversationId)])

    const hello = await sellerLive.send(conversationId, "Hello, the phone is sealed.")
    expect(hello).toMatchObject({ conversation_id: conversationId, sender_id: seller.userId })
    await eventually(() => buyerSaw.messages.length === 1, 20_000, "the buyer to receive the seller's message")
    expect(buyerSaw.messages[0]).toEqual(hello)

    const reply = await buyerLive.send(conversationId, "Great, can we meet at 6?")
    expect(reply.sender_id).toBe(buyer.userId)
    await postMessage(buyer.talab, conversationId, "Sent over REST")
    await eventually(() => sellerSaw.messages.length === 3, 20_000, "the seller to receive both replies")
    await eventually(() => buyerSaw.messages.length === 3, 20_000, "the buyer to see their own messages once")
    expect(sellerSaw.texts()).toEqual(["Hello, the phone is sealed.", "Great, can we meet at 6?", "Sent over REST"])
    expect(buyerSaw.texts()).toEqual(sellerSaw.texts())

    const { data: accepted } = await buyer.talab.POST("/offers/{id}/accept", { params: { path: { id: offer.id } } })
    const { data: deal } = await seller.talab.GET("/deals/{id}", { params: { path: { id: accepted.deal.id } } })
    expect(deal.conversation_id).toBe(conversationId)
    await sellerLive.send(conversationId, "See you at 6.")
    const { data: completed } = await buyer.talab.PUT("/deals/{id}/complete", { params: { path: { id: deal.id } } })
    expect(completed.status).toBe("completed")

    await eventually(() => buyerSaw.messages.length === 4, 20_000, "the buyer to receive the last message")
    expect(sellerSaw.texts()).toEqual(buyerSaw.texts())
    const { data: history } = await buyer.talab.GET("/conversations/{id}/messages", {
      params: { path: { id: conversationId } }
    })
    expect(history.messages.map((m) => m.id).reverse()).toEqual(buyerSaw.messages.map((m) => m.id))
  })

  it("rejects a subscription to an unknown conversation (NOT_FOUND) and to someone else's (FORBIDDEN)", async () => {
    const { conversationId } = await negotiation()
    const stranger = await signedInClient(server())
    const live = realtime(stranger.talab)
    await live.connect()

    const unknown = await live.subscribe("5f1f3c1e-3c55-4d55-8a3f-6c2a6f7a9b10").catch((e: unknown) => e)
    expect(unknown).toBeInstanceOf(RealtimeError)
    expect((unknown as RealtimeError).code).toBe("NOT_FOUND")
    const forbidden = await live.subscribe(conversationId).catch((e: unknown) => e)
    expect((forbidden as RealtimeError).code).toBe("FORBIDDEN")
    const notParty = await live.send(conversationId, "hi").catch((e: unknown) => e)
    expect((notParty as RealtimeError).code).toBe("FORBIDDEN")
  })

  it("a refused message carries the server's field messages in `details`, as a REST refusal does", async () => {
    const { buyer, conversationId } = await negotiation()
    const live = realtime(buyer.talab)
    await live.connect()
    const refused = await live.send(conversationId, "   ").catch((e: unknown) => e)
    expect(isRealtimeError(refused, "VALIDATION_ERROR")).toBe(true)
    const overRest = await buyer.talab
      .POST("/conversations/{id}/messages", { params: { path: { id: conversationId } }, body: { message_text: "   " } })
      .catch((e: unknown) => e)
    expect(isTalabApiError(overRest, "VALIDATION_ERROR")).toBe(true)
    expect((refused as RealtimeError).details).toEqual((overRest as TalabApiError).details)
    expect((refused as RealtimeError).details?.message_text?.length).toBeGreaterThan(0)
    // Errors of the client's own name no fields.
    live.dispose()
    const closed = await live.send(conversationId, "hi").catch((e: unknown) => e)
    expect(isRealtimeError(closed, "CLOSED")).toBe(true)
    expect((closed as RealtimeError).details).toBeUndefined()
  })

  it("the server's error frames come in the client's language, whatever the user saved", async () => {
    const { conversationId } = await negotiation()
    const stranger = await signedInClient(server(), { language: "en" })
    await stranger.talab.PUT("/users/me", { body: { language: "ar" } })

    const english = realtime(stranger.talab)
    await english.connect()
    const inEnglish = await english.subscribe(conversationId).catch((e: unknown) => e)
    expect(isRealtimeError(inEnglish, "FORBIDDEN")).toBe(true)
    expect((inEnglish as RealtimeError).message).toBe("You are not allowed to do this")
    await english.close()

    stranger.talab.setLanguage("ar")
    const arabic = realtime(stranger.talab)
    await arabic.connect()
    const inArabic = await arabic.subscribe(conversationId).catch((e: unknown) => e)
    expect(isRealtimeError(inArabic, "FORBIDDEN")).toBe(true)
    expect((inArabic as RealtimeError).message).toBe("ليست لديك صلاحية لهذا الإجراء")
    expect(isRealtimeError(inArabic, "NOT_FOUND")).toBe(false)
  })

  it("reconnects after the server side drops the socket and fetches what was sent meanwhile: no gap, no duplicate", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl })
    const saw = recorder(live)
    const states: Array<string> = []
    live.on("state", (state) => states.push(state))
    const caughtUp: Array<{ conversationId: string; count: number }> = []
    live.on("caughtUp", (event) => caughtUp.push(event))
    await live.connect()
    await live.subscribe(conversationId)

    const sendRest = (text: string) => postMessage(seller.talab, conversationId, text)
    await sendRest("one")
    await eventually(() => saw.messages.length === 1, 20_000, "the first message")

    proxy.refuse()
    proxy.dropAll()
    await eventually(() => live.state === "reconnecting", 20_000, "the client to notice the drop")
    for (const text of ["two", "three", "four"]) await sendRest(text)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(saw.texts()).toEqual(["one"])

    proxy.accept()
    await eventually(() => saw.messages.length === 4, 10_000, "the missed messages")
    expect(caughtUp).toEqual([{ conversationId, count: 3 }])
    await sendRest("five")
    await eventually(() => saw.messages.length === 5, 20_000, "a live message after the reconnect")

    expect(saw.texts()).toEqual(["one", "two", "three", "four", "five"])
    expect(saw.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5])
    expect(states).toEqual(["connecting", "open", "reconnecting", "open"])
    expect(proxy.accepted()).toBeGreaterThanOrEqual(2)
  })

  it("re-authenticates with a refreshed token when the access token expired while disconnected", async () => {
    const counting = countingFetch()
    const buyer = await signedInClient(server(), { fetch: counting.fetch })
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl })
    await live.connect()

    proxy.dropAll()
    server().clock.advance(PAST_ACCESS_TOKEN_LIFETIME)
    await eventually(() => counting.count("/auth/refresh") === 1, 10_000, "the refresh")
    await eventually(() => live.state === "open", 10_000, "the connection to be back")
    expect(live.userId).toBe(buyer.userId)
    // The refreshed token serves REST too: no second refresh.
    await buyer.talab.GET("/users/me")
    expect(counting.count("/auth/refresh")).toBe(1)
  })

  it("a send while the connection is down waits for it and resolves with the ack", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl })
    const sellerLive = realtime(seller.talab)
    const sellerSaw = recorder(sellerLive)
    await Promise.all([live.connect(), sellerLive.connect()])
    await sellerLive.subscribe(conversationId)

    proxy.refuse()
    proxy.dropAll()
    await eventually(() => live.state === "reconnecting", 20_000, "the drop")
    const sent = live.send(conversationId, "queued while offline")
    setTimeout(() => proxy.accept(), 150)

    const stored = await sent
    expect(stored.message_text).toBe("queued while offline")
    await eventually(() => sellerSaw.messages.length === 1, 20_000, "the seller to get it")
    expect(sellerSaw.messages[0]!.id).toBe(stored.id)
  })

  it("a message whose ack was lost is sent again after the reconnect and stored once", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl })
    await live.connect()

    proxy.swallowReplies()
    const sent = live.send(conversationId, "did it arrive?")
    await new Promise((resolve) => setTimeout(resolve, 200))
    proxy.deliver()
    proxy.dropAll()

    const stored = await sent
    const { data } = await seller.talab.GET("/conversations/{id}/messages", {
      params: { path: { id: conversationId } }
    })
    expect(data.messages.filter((m) => m.message_text === "did it arrive?").map((m) => m.id)).toEqual([stored.id])
  })

  it("a send with no ack in time on a silent connection is sent again over a new one, and stored once", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl, replyTimeoutMs: 300, sendTimeoutMs: 30_000 })
    await live.connect()

    proxy.swallowReplies()
    const sent = live.send(conversationId, "anyone there?")
    // Answers again once the client has given the silent connection up and opened another.
    void eventually(() => proxy.accepted() >= 2, 20_000, "a second connection").then(() => proxy.deliver())

    const stored = await sent
    expect(proxy.accepted()).toBeGreaterThanOrEqual(2)
    const { data } = await seller.talab.GET("/conversations/{id}/messages", {
      params: { path: { id: conversationId } }
    })
    expect(data.messages.filter((m) => m.message_text === "anyone there?").map((m) => m.id)).toEqual([stored.id])
  })

  it("replaces a socket that went silent (no pong to its pings) with a new connection", async () => {
    const buyer = await signedInClient(server())
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl, heartbeatIntervalMs: 100, replyTimeoutMs: 500 })
    await live.connect()

    proxy.swallowReplies()
    await eventually(() => live.state === "reconnecting", 10_000, "the silent socket to be given up")
    proxy.deliver()
    // A connection's sign-in has the same 500 ms to be answered; a busy machine may cost a few attempts.
    await eventually(() => live.state === "open", 20_000, "a new connection")
    expect(proxy.accepted()).toBeGreaterThanOrEqual(2)
  })

  it("in the background sends no heartbeat, so a silent socket is not given up there", async () => {
    const buyer = await signedInClient(server())
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl, heartbeatIntervalMs: 50, replyTimeoutMs: 5_000 })
    await live.connect()
    live.background()
    proxy.swallowReplies()
    // Ten heartbeat intervals: with heartbeats on, the second unanswered ping would have cut the socket.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(live.state).toBe("open")
    expect(proxy.accepted()).toBe(1)
  })

  it("back in the foreground pings at once and replaces a socket the server no longer answers on", async () => {
    const buyer = await signedInClient(server())
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    // A heartbeat a minute apart: only the check on foreground() can notice the dead socket within the test.
    const live = realtime(buyer.talab, { url: proxy.wsUrl, heartbeatIntervalMs: 60_000, replyTimeoutMs: 300 })
    await live.connect()
    live.background()
    proxy.swallowReplies()
    live.foreground()
    await eventually(() => live.state === "reconnecting", 10_000, "the silent socket to be given up")
    proxy.deliver()
    // A connection's sign-in has the same 300 ms to be answered; a busy machine may cost a few attempts.
    await eventually(() => live.state === "open", 20_000, "a new connection")
    expect(proxy.accepted()).toBeGreaterThanOrEqual(2)
  })

  it("back in the foreground reconnects now instead of waiting out the backoff", async () => {
    const buyer = await signedInClient(server())
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } })
    await live.connect()
    live.background()
    proxy.dropAll()
    await eventually(() => live.state === "reconnecting", 20_000, "the drop to be noticed")
    live.foreground()
    await eventually(() => live.state === "open", 20_000, "the reconnection")
    expect(live.isInBackground).toBe(false)
  })

  it("subscribing with `after: { seq: 0 }` emits the whole conversation, oldest first, then live", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const post = (text: string) => postMessage(seller.talab, conversationId, text)
    const live = realtime(buyer.talab)
    const saw = recorder(live)
    const caughtUp: Array<{ conversationId: string; count: number }> = []
    live.on("caughtUp", (event) => caughtUp.push(event))
    await live.connect()
    await post("first")
    await post("second")
    await live.subscribe(conversationId, { after: { seq: 0 } })
    expect(saw.messages.map((m) => m.seq)).toEqual([1, 2])
    expect(caughtUp).toEqual([{ conversationId, count: 2 }])
    await post("third")
    await eventually(() => saw.messages.length === 3, 20_000, "the live message")
    expect(saw.texts()).toEqual(["first", "second", "third"])
  })

  it("catches up from the last message the app shows when it subscribes with `after`", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const post = (text: string) => postMessage(seller.talab, conversationId, text)
    const shown = await post("already on screen")
    await post("missed 1")
    await post("missed 2")

    const live = realtime(buyer.talab, { catchUpPageSize: 1 })
    const saw = recorder(live)
    await live.connect()
    await live.subscribe(conversationId, { after: shown })
    await eventually(() => saw.messages.length === 2, 20_000, "the catch-up")
    expect(saw.texts()).toEqual(["missed 1", "missed 2"])
  })

  it("emits messages that arrive swapped in seq order, once each", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    // The socket hands message 2 over only after message 3, as two instances may deliver them.
    let heldBack: (() => void) | undefined
    const swapping = tamperedWebSocket((frame, pass) => {
      if (frame.type === "message" && frame.data.seq === 2) heldBack = pass
      else {
        pass()
        if (frame.type === "message" && frame.data.seq === 3) heldBack?.()
      }
    })
    const live = realtime(buyer.talab, { WebSocket: swapping })
    const saw = recorder(live)
    await live.connect()
    await live.subscribe(conversationId)
    for (const text of ["one", "two", "three"]) await postMessage(seller.talab, conversationId, text)
    await eventually(() => saw.messages.length === 3, 20_000, "the three messages")
    expect(saw.messages.map((m) => m.seq)).toEqual([1, 2, 3])
  })

  it("fetches a message the socket never delivered over REST (after_seq), then goes on in order", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const dropping = tamperedWebSocket((frame, pass) => {
      if (!(frame.type === "message" && frame.data.seq === 2)) pass()
    })
    const counting = countingFetch()
    const reader = await signedInClient(server(), { fetch: counting.fetch, phone: buyer.phone })
    const live = realtime(reader.talab, { WebSocket: dropping, gapTimeoutMs: 50 })
    const saw = recorder(live)
    await live.connect()
    await live.subscribe(conversationId)
    for (const text of ["one", "two", "three"]) await postMessage(seller.talab, conversationId, text)
    await eventually(() => saw.messages.length === 3, 20_000, "the missing message, fetched")
    expect(saw.texts()).toEqual(["one", "two", "three"])
    // Where the subscription started, then the gap.
    expect(counting.count(`/conversations/${conversationId}/messages`)).toBe(2)
    await postMessage(seller.talab, conversationId, "four")
    await eventually(() => saw.messages.length === 4, 20_000, "the next live message")
    expect(saw.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4])
  })

  it("resumes after a long absence: what the server does not send at once (has_more) is read over REST", async () => {
    const { buyer, seller, conversationId } = await negotiation()
    const proxy = await startFlakyProxy({ host: "127.0.0.1", port: Number(new URL(server().baseUrl).port) })
    closers.push(proxy.close)
    const live = realtime(buyer.talab, { url: proxy.wsUrl })
    const saw = recorder(live)
    const caughtUp: Array<{ conversationId: string; count: number }> = []
    live.on("caughtUp", (event) => caughtUp.push(event))
    await live.connect()
    await live.subscribe(conversationId)

    proxy.refuse()
    proxy.dropAll()
    await eventually(() => live.state === "reconnecting", 20_000, "the drop")
    await Promise.all(
      Array.from({ length: 55 }, (_, i) => postMessage(seller.talab, conversationId, `missed ${i + 1}`))
    )
    proxy.accept()
    await eventually(() => saw.messages.length === 55, 10_000, "all the missed messages")
    expect(saw.messages.map((m) => m.seq)).toEqual(Array.from({ length: 55 }, (_, i) => i + 1))
    expect(caughtUp).toEqual([{ conversationId, count: 55 }])
  })

  it("closes when the session ends on the server (logout elsewhere): the refresh is refused, signed out", async () => {
    const buyer = await signedInClient(server())
    const signedOut: Array<unknown> = []
    buyer.talab.on("signedOut", (event) => signedOut.push(event))
    const live = realtime(buyer.talab)
    await live.connect()

    const tokens = (await buyer.talab.auth.tokens())!
    await fetch(`${server().apiUrl}/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.accessToken}`, "content-type": "application/json" },
      body: "{}"
    })

    await eventually(() => live.state === "closed", 10_000, "the realtime client to close")
    expect(signedOut).toEqual([{ reason: "session_expired" }])
    expect(await buyer.talab.auth.isSignedIn()).toBe(false)
    await expect(live.send("5f1f3c1e-3c55-4d55-8a3f-6c2a6f7a9b10", "hi")).rejects.toMatchObject({ code: "CLOSED" })
  })

  it("closes when the app signs out, and rejects what was waiting", async () => {
    const { buyer } = await negotiation()
    const live = realtime(buyer.talab)
    await live.connect()
    await buyer.talab.auth.signOut()
    expect(live.state).toBe("closed")
    await expect(live.connect()).rejects.toMatchObject({ code: "SIGNED_OUT" })
  })
})
