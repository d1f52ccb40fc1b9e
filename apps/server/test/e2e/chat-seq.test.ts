import { afterEach, describe, expect, it } from "vitest"
import {
  chatScene,
  expectError,
  Marketplace,
  marketplaceSettings,
  postMessage,
  unknownId
} from "../support/fixtures.js"
import { backends, client, newPhone, type Query, useServer } from "../support/harness.js"
import {
  deliveredSeqs,
  expectResumedWithoutGap,
  sendOverSocket,
  seqRange,
  subscribeSince,
  untilSeq,
  writeConcurrently
} from "../support/seq.js"
import { connectAs, type WsClient } from "../support/ws-client.js"

/*
 * Lossless chat: `seq` (1, 2, 3, … per conversation, no gaps) on every message view, history after a seq,
 * read marks up to a seq, and WebSocket subscriptions that resume from a seq with no gap and no duplicate.
 */
describe.each(backends)("message seq on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone]))
  let shared: Marketplace | undefined
  const market = () => (shared ??= new Marketplace(server(), client(server()), adminPhone))
  const opened: Array<WsClient> = []
  const socketOf = async (token: string, conversations: ReadonlyArray<string> = []) => {
    const socket = await connectAs(server().wsUrl, token, conversations)
    opened.push(socket)
    return socket
  }
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })
  const history = (token: string, conversationId: string, query: Query = "") =>
    market().api.get(`/conversations/${conversationId}/messages${query}`, { token })
  const unreadOf = async (token: string, conversationId: string) =>
    (await market().api.get("/conversations/my?per_page=50", { token })).body.data.conversations.find(
      (c) => c.id === conversationId
    )!.unread_count

  it("numbers messages 1, 2, 3 per conversation on every view: send response, ack, message frame, history, list", async () => {
    const m = market()
    const scene = await chatScene(m)
    const other = await chatScene(m, { buyer: scene.buyer })
    const seller = await socketOf(scene.seller.token, [scene.conversationId])

    const first = await postMessage(m.api, scene.buyer, scene.conversationId, "one")
    expect(first.seq).toBe(1)
    expect((await seller.nextOfType("message")).data).toEqual(first)
    seller.send({ type: "message", conversation_id: scene.conversationId, message_text: "two", client_id: "s-2" })
    const ack = await seller.nextOfType("ack")
    expect(ack.data.seq).toBe(2)
    expect(await seller.nextOfType("message")).toEqual({ type: "message", data: ack.data })
    expect((await postMessage(m.api, scene.buyer, other.conversationId, "elsewhere")).seq).toBe(1)

    const page = await history(scene.seller.token, scene.conversationId)
    expect(page.body.data.messages.map((x) => [x.seq, x.message_text])).toEqual([
      [2, "two"],
      [1, "one"]
    ])
    const listed = (await m.api.get("/conversations/my", { token: scene.buyer.token })).body.data.conversations
    expect(listed.find((c) => c.id === scene.conversationId)!.last_message).toMatchObject({ text: "two", seq: 2 })
  })

  it("GET messages?after_seq answers what came after, oldest first; limit applies and has_more says more follow", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (let i = 1; i <= 5; i++) await postMessage(m.api, scene.seller, scene.conversationId, `m${i}`)
    const seqsOf = (response: Awaited<ReturnType<typeof history>>) => response.body.data.messages.map((x) => x.seq)

    const after2 = await history(scene.buyer.token, scene.conversationId, "?after_seq=2&limit=2")
    expect(after2.status).toBe(200)
    expect(seqsOf(after2)).toEqual([3, 4])
    expect(after2.body.data.has_more).toBe(true)
    expect(after2.body.data.messages[0]).toMatchObject({ message_text: "m3", read_at: expect.any(String) })
    const after4 = await history(scene.buyer.token, scene.conversationId, "?after_seq=4&limit=2")
    expect(seqsOf(after4)).toEqual([5])
    expect(after4.body.data.has_more).toBe(false)
    const fromStart = await history(scene.buyer.token, scene.conversationId, "?after_seq=0")
    expect(seqsOf(fromStart)).toEqual([1, 2, 3, 4, 5])
    expect(fromStart.body.data.has_more).toBe(false)
    expect((await history(scene.buyer.token, scene.conversationId, "?after_seq=5")).body.data).toEqual({
      messages: [],
      has_more: false
    })
    expect((await history(scene.buyer.token, scene.conversationId, "?after_seq=2147483647")).status).toBe(200)
  })

  it("refuses a bad after_seq, or after_seq with before, with 400 naming after_seq; reading after a seq marks read", async () => {
    const m = market()
    const scene = await chatScene(m)
    await postMessage(m.api, scene.seller, scene.conversationId, "unread")
    for (const query of [
      "?after_seq=-1",
      "?after_seq=1.5",
      "?after_seq=abc",
      "?after_seq=%201",
      "?after_seq=1e2",
      "?after_seq=2147483648",
      `?after_seq=1&before=${encodeURIComponent("2030-01-01T00:00:00Z")}`
    ] as const) {
      const response = await history(scene.buyer.token, scene.conversationId, query)
      expectError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details), query).toEqual(["after_seq"])
    }
    expect(await unreadOf(scene.buyer.token, scene.conversationId)).toBe(1)
    // Reading forward marks the other party's messages read, as any page of history does.
    await history(scene.buyer.token, scene.conversationId, "?after_seq=1")
    expect(await unreadOf(scene.buyer.token, scene.conversationId)).toBe(0)
    const outsider = await m.buyer("Outsider")
    expectError(await history(outsider.token, scene.conversationId, "?after_seq=0"), 403, "FORBIDDEN")
  })

  it("PUT read marks the other party's messages up to up_to_seq and answers the exact unread_count", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (const text of ["s1", "s2", "s3"]) await postMessage(m.api, scene.seller, scene.conversationId, text)
    await postMessage(m.api, scene.buyer, scene.conversationId, "b4")
    await postMessage(m.api, scene.seller, scene.conversationId, "s5")
    const read = (token: string, body: unknown, id = scene.conversationId) =>
      m.api.raw.put(`/conversations/${id}/read`, { token, body })

    const phone = await read(scene.buyer.token, { up_to_seq: 2 })
    expect(phone.status).toBe(200)
    expect(phone.body).toEqual({ success: true, data: { conversation_id: scene.conversationId, unread_count: 2 } })
    // Another device of the buyer sees the same count; an older mark changes nothing.
    expect(await unreadOf(scene.buyer.token, scene.conversationId)).toBe(2)
    expect((await read(scene.buyer.token, { up_to_seq: 1 })).body.data.unread_count).toBe(2)
    expect((await read(scene.buyer.token, { up_to_seq: 0 })).body.data.unread_count).toBe(2)
    const readAt = async () =>
      (await history(scene.seller.token, scene.conversationId, "?after_seq=0")).body.data.messages
        .filter((x) => x.sender_id === scene.seller.userId)
        .map((x): [number, boolean] => [x.seq, x.read_at !== null])
    expect(await readAt()).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [5, false]
    ])
    // The buyer's own message (4) is not the buyer's to mark; the seller's count is the seller's.
    expect((await read(scene.buyer.token, { up_to_seq: 4 })).body.data.unread_count).toBe(1)
    expect(await unreadOf(scene.seller.token, scene.conversationId)).toBe(0) // the seller's history read marked 4
    // Marking up to a seq not stored yet marks what there is.
    expect((await read(scene.buyer.token, { up_to_seq: 1000 })).body.data.unread_count).toBe(0)
    expect((await readAt()).every(([, read]) => read)).toBe(true)
    await postMessage(m.api, scene.seller, scene.conversationId, "s6")
    expect(await unreadOf(scene.buyer.token, scene.conversationId)).toBe(1)
  })

  it("PUT read: only the parties (403), unknown or malformed ids 404, no token 401, bad up_to_seq 400 changing nothing", async () => {
    const m = market()
    const scene = await chatScene(m)
    await postMessage(m.api, scene.seller, scene.conversationId, "unread")
    const outsider = await m.buyer("Outsider")
    const read = (token: string | undefined, body: unknown, id = scene.conversationId) =>
      m.api.raw.put(`/conversations/${id}/read`, { token, body })

    expectError(await read(outsider.token, { up_to_seq: 1 }), 403, "FORBIDDEN")
    expectError(await read(scene.buyer.token, { up_to_seq: 1 }, unknownId()), 404, "NOT_FOUND")
    expectError(await read(scene.buyer.token, { up_to_seq: 1 }, "not-a-uuid"), 404, "NOT_FOUND")
    expectError(await read(undefined, { up_to_seq: 1 }), 401, "UNAUTHORIZED")
    for (const body of [{}, { up_to_seq: -1 }, { up_to_seq: 1.5 }, { up_to_seq: "1" }, { up_to_seq: 2147483648 }]) {
      const response = await read(scene.buyer.token, body)
      expectError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details), JSON.stringify(body)).toEqual(["up_to_seq"])
    }
    // 400 outranks 404 and 403, as for the other operations.
    expectError(await read(scene.buyer.token, {}, unknownId()), 400, "VALIDATION_ERROR")
    expectError(await read(outsider.token, {}), 400, "VALIDATION_ERROR")
    expect(await unreadOf(scene.buyer.token, scene.conversationId)).toBe(1)
  })

  it("subscribe with since_seq sends the missed messages, then caught_up, then live ones", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (let i = 1; i <= 4; i++) await postMessage(m.api, scene.seller, scene.conversationId, `m${i}`)
    const socket = await socketOf(scene.buyer.token)
    const channel = `conversation.${scene.conversationId}`

    expect(await subscribeSince(socket, scene.conversationId, 2)).toEqual({ type: "subscribed", channel })
    expect(await socket.next((frame) => frame.type === "caught_up")).toEqual({
      type: "caught_up",
      channel,
      last_seq: 4,
      has_more: false
    })
    expect(deliveredSeqs(socket, scene.conversationId)).toEqual([3, 4])
    expect(socket.all("message")[0].data).not.toHaveProperty("read_at")
    await postMessage(m.api, scene.seller, scene.conversationId, "live")
    await untilSeq(socket, scene.conversationId, 5)

    // Subscribing again with since_seq catches up again; without it, nothing is replayed.
    socket.send({ type: "subscribe", channel })
    await socket.next((frame) => frame.type === "subscribed")
    expect(await subscribeSince(socket, scene.conversationId, 4)).toEqual({ type: "subscribed", channel })
    expect(await socket.next((frame) => frame.type === "caught_up")).toMatchObject({ last_seq: 5, has_more: false })
    // Past the end: nothing to send, and the claimed seq is where it stands.
    expect(await subscribeSince(socket, scene.conversationId, 9)).toEqual({ type: "subscribed", channel })
    expect(await socket.next((frame) => frame.type === "caught_up")).toMatchObject({ last_seq: 9, has_more: false })
    await socket.barrier()
    expect(deliveredSeqs(socket, scene.conversationId)).toEqual([3, 4, 5, 5])
  })

  it("bounds a catch-up at 50 messages: caught_up says has_more, the rest comes by REST after last_seq", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (let i = 1; i <= 53; i++) await postMessage(m.api, scene.seller, scene.conversationId, `m${i}`)
    const socket = await socketOf(scene.buyer.token)
    await subscribeSince(socket, scene.conversationId, 0)
    const caughtUp = await socket.next((frame) => frame.type === "caught_up")
    expect(caughtUp).toMatchObject({ last_seq: 50, has_more: true })
    expect(deliveredSeqs(socket, scene.conversationId)).toEqual(seqRange(1, 50))
    const rest = await history(scene.buyer.token, scene.conversationId, `?after_seq=${caughtUp.last_seq}`)
    expect(rest.body.data.messages.map((x) => x.seq)).toEqual([51, 52, 53])
  })

  it("refuses a bad since_seq with VALIDATION_ERROR naming it, subscribing to nothing", async () => {
    const m = market()
    const scene = await chatScene(m)
    const socket = await socketOf(scene.buyer.token)
    const channel = `conversation.${scene.conversationId}`
    for (const since_seq of [-1, 1.5, "3", 2147483648]) {
      socket.send({ type: "subscribe", channel, since_seq })
      const error = await socket.nextOfType("error")
      expect(error).toMatchObject({ code: "VALIDATION_ERROR" })
      expect(Object.keys(error.details)).toEqual(["since_seq"])
    }
    await postMessage(m.api, scene.seller, scene.conversationId, "not subscribed")
    await socket.barrier()
    expect(socket.all("message")).toEqual([])
    // A non-party with since_seq: FORBIDDEN, and nothing is sent.
    const outsider = await socketOf((await m.buyer("Outsider")).token)
    expect(await subscribeSince(outsider, scene.conversationId, 0)).toMatchObject({ code: "FORBIDDEN" })
    await outsider.barrier()
    expect(outsider.all("message")).toEqual([])
  })

  it("resumes with no gap and no duplicate while messages are written during the catch-up", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (let i = 1; i <= 5; i++) await postMessage(m.api, scene.seller, scene.conversationId, `before ${i}`)
    const total = 45
    // Eight writers at once, REST and WebSocket, while three sockets resume from different points.
    const writerSocket = await socketOf(scene.seller.token)
    const writing = writeConcurrently(5, total, [
      (text) => sendOverSocket(writerSocket, scene.conversationId, text),
      ...Array.from(
        { length: 7 },
        (_, i) => (text: string) => postMessage(m.api, i % 2 ? scene.seller : scene.buyer, scene.conversationId, text)
      )
    ])
    const resumed: Array<{ socket: WsClient; since: number }> = []
    for (const [index, since] of [2, 5, 0].entries()) {
      while (writing.written() < 10 * (index + 1)) await new Promise((resolve) => setTimeout(resolve, 5))
      const socket = await socketOf(scene.buyer.token)
      expect(await subscribeSince(socket, scene.conversationId, since)).toMatchObject({ type: "subscribed" })
      resumed.push({ socket, since })
    }
    await writing.done
    await expectResumedWithoutGap(resumed, scene.conversationId, total)
  })

  it.runIf(backend === "postgres")(
    "20 parallel sends over REST and WebSocket get exactly 1..20",
    async () => {
      const m = market()
      const scene = await chatScene(m)
      const buyerSocket = await socketOf(scene.buyer.token)
      const sellerSocket = await socketOf(scene.seller.token)
      const overSocket = (socket: WsClient, i: number) => sendOverSocket(socket, scene.conversationId, `ws ${i}`)
      const sent = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          if (i % 4 === 0) return overSocket(buyerSocket, i)
          if (i % 4 === 1) return overSocket(sellerSocket, i)
          return postMessage(m.api, i % 2 ? scene.seller : scene.buyer, scene.conversationId, `rest ${i}`)
        })
      )
      expect(sent.map((message) => message.seq).sort((a, b) => a - b)).toEqual(seqRange(1, 20))
      const stored = (await history(scene.buyer.token, scene.conversationId, "?after_seq=0&limit=100")).body.data
        .messages
      expect(stored.map((x) => x.seq)).toEqual(seqRange(1, 20))
      const times = stored.map((x) => Date.parse(x.created_at))
      expect(times).toEqual([...times].sort((a, b) => a - b))
    },
    60_000
  )
})
