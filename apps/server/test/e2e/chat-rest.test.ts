import { describe, expect, it } from "vitest"
import {
  chatScene,
  expectError,
  ISO_UTC,
  Marketplace,
  marketplaceSettings,
  postMessage,
  UUID,
  unknownId
} from "../support/fixtures.js"
import { backends, client, newPhone, type Query, useServer } from "../support/harness.js"

/** Conversations over REST: GET /conversations/my, GET and POST /conversations/{id}/messages. */
describe.each(backends)("conversations over REST on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone]))
  let shared: Marketplace | undefined
  const market = () => (shared ??= new Marketplace(server(), client(server()), adminPhone))

  it("opens a conversation with each offer, listed for both parties with the other party's face", async () => {
    const m = market()
    const scene = await chatScene(m)
    await m.api.put("/users/me", { token: scene.seller.token, body: { name: "Olaya Mobiles" } })

    const buyerList = await m.api.get("/conversations/my", { token: scene.buyer.token })
    expect(buyerList.status).toBe(200)
    expect(buyerList.body.success).toBe(true)
    expect(buyerList.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 1, last_page: 1 })
    const [conversation] = buyerList.body.data.conversations
    expect(conversation).toEqual({
      id: scene.conversationId,
      offer_id: scene.offer.id,
      other_party: { id: scene.seller.userId, name: "Olaya Mobiles", avatar_url: null, deleted: false },
      last_message: null,
      unread_count: 0,
      created_at: expect.stringMatching(ISO_UTC)
    })

    const sellerList = await m.api.get("/conversations/my", { token: scene.seller.token })
    expect(sellerList.body.data.conversations).toEqual([
      { ...conversation, other_party: { id: scene.buyer.userId, name: "Buyer", avatar_url: null, deleted: false } }
    ])

    const outsider = await m.buyer("Outsider")
    const outsiderList = await m.api.get("/conversations/my", { token: outsider.token })
    expect(outsiderList.body.data).toEqual({
      conversations: [],
      pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1 }
    })
  })

  it("stores a message (trimmed) and answers 201 with the stored message", async () => {
    const m = market()
    const scene = await chatScene(m)
    const sent = await m.api.post(`/conversations/${scene.conversationId}/messages`, {
      token: scene.buyer.token,
      body: { message_text: "  Is it still available?  " }
    })
    expect(sent.status).toBe(201)
    expect(sent.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(UUID),
        conversation_id: scene.conversationId,
        seq: 1,
        sender_id: scene.buyer.userId,
        kind: "text",
        message_text: "Is it still available?",
        masked: false,
        attachments: [],
        created_at: expect.stringMatching(ISO_UTC)
      }
    })
    const history = await m.api.get(`/conversations/${scene.conversationId}/messages`, { token: scene.seller.token })
    expect(history.body.data.messages.map((x) => [x.id, x.message_text])).toEqual([
      [sent.body.data.id, "Is it still available?"]
    ])
  })

  it("refuses message_text that is empty after trimming, longer than 4000 characters, or not a string", async () => {
    const m = market()
    const scene = await chatScene(m)
    const post = (body: unknown) =>
      m.api.raw.post(`/conversations/${scene.conversationId}/messages`, { token: scene.buyer.token, body })
    for (const body of [{ message_text: "   " }, { message_text: "x".repeat(4001) }, { message_text: 42 }, {}]) {
      const response = await post(body)
      expectError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details)).toEqual(["message_text"])
    }
    const longest = await post({ message_text: ` ${"ع".repeat(4000)} ` })
    expect(longest.status).toBe(201)
    expect(longest.body.data.message_text).toHaveLength(4000)

    const history = await m.api.get(`/conversations/${scene.conversationId}/messages`, { token: scene.buyer.token })
    expect(history.body.data.messages).toHaveLength(1)
  })

  it("lets only the two parties read or write; an unknown conversation is 404, no token 401", async () => {
    const m = market()
    const scene = await chatScene(m)
    const outsider = await m.buyer("Outsider")
    const path = `/conversations/${scene.conversationId}/messages` as const

    expectError(await m.api.get(path, { token: outsider.token }), 403, "FORBIDDEN")
    expectError(await m.api.post(path, { token: outsider.token, body: { message_text: "hello" } }), 403, "FORBIDDEN")
    for (const id of [unknownId(), "not-a-uuid"]) {
      expectError(await m.api.get(`/conversations/${id}/messages`, { token: scene.buyer.token }), 404, "NOT_FOUND")
      expectError(
        await m.api.post(`/conversations/${id}/messages`, { token: scene.buyer.token, body: { message_text: "hi" } }),
        404,
        "NOT_FOUND"
      )
    }
    expectError(await m.api.get(path), 401, "UNAUTHORIZED")
    expectError(await m.api.post(path, { body: { message_text: "hi" } }), 401, "UNAUTHORIZED")
    expectError(await m.api.get("/conversations/my"), 401, "UNAUTHORIZED")
    // 400 outranks 404 and 403.
    expectError(
      await m.api.raw.post(`/conversations/${unknownId()}/messages`, { token: scene.buyer.token, body: {} }),
      400,
      "VALIDATION_ERROR"
    )
    expectError(await m.api.raw.post(path, { token: outsider.token, body: {} }), 400, "VALIDATION_ERROR")

    const history = await m.api.get(path, { token: scene.seller.token })
    expect(history.body.data.messages).toEqual([])
  })

  it("pages history newest first with limit, before and has_more", async () => {
    const m = market()
    const scene = await chatScene(m)
    const sent = []
    for (let i = 1; i <= 5; i++)
      sent.push(await postMessage(m.api, i % 2 ? scene.buyer : scene.seller, scene.conversationId, `m${i}`))
    const page = (query: Query) =>
      m.api.get(`/conversations/${scene.conversationId}/messages${query}`, { token: scene.buyer.token })

    const first = await page("?limit=2")
    expect(first.status).toBe(200)
    expect(first.body.data.messages.map((x) => x.message_text)).toEqual(["m5", "m4"])
    expect(first.body.data.has_more).toBe(true)
    const second = await page(`?limit=2&before=${encodeURIComponent(first.body.data.messages[1].created_at)}`)
    expect(second.body.data.messages.map((x) => x.message_text)).toEqual(["m3", "m2"])
    expect(second.body.data.has_more).toBe(true)
    const third = await page(`?limit=2&before=${encodeURIComponent(second.body.data.messages[1].created_at)}`)
    expect(third.body.data.messages.map((x) => x.message_text)).toEqual(["m1"])
    expect(third.body.data.has_more).toBe(false)

    const all = await page("")
    expect(all.body.data.messages.map((x) => x.message_text)).toEqual(["m5", "m4", "m3", "m2", "m1"])
    expect(all.body.data.has_more).toBe(false)
    expect(all.body.data.messages[0]).toEqual({
      id: sent[4].id,
      conversation_id: scene.conversationId,
      seq: 5,
      sender_id: scene.buyer.userId,
      kind: "text",
      message_text: "m5",
      masked: false,
      attachments: [],
      read_at: null,
      created_at: sent[4].created_at
    })
    const exact = await page("?limit=5")
    expect(exact.body.data.has_more).toBe(false)
    const older = await page(`?before=${encodeURIComponent("2000-01-01T00:00:00Z")}`)
    expect(older.body.data).toEqual({ messages: [], has_more: false })
    const offset = await page(`?before=${encodeURIComponent(sent[2].created_at.replace("Z", "+00:00"))}`)
    expect(offset.body.data.messages.map((x) => x.message_text)).toEqual(["m2", "m1"])
  })

  it("never splits messages sent in the same millisecond across pages (each is stored strictly after the previous)", async () => {
    const m = market()
    const scene = await chatScene(m)
    // Lettered, not numbered: twelve numbered messages from one sender read as a number spread over them.
    const texts = Array.from({ length: 12 }, (_, i) => `burst ${String.fromCharCode(97 + i)}`)
    await Promise.all(texts.map((text) => postMessage(m.api, scene.buyer, scene.conversationId, text)))
    const seen: Array<string> = []
    let before = ""
    for (;;) {
      const page = await m.api.get(`/conversations/${scene.conversationId}/messages?limit=5${before}`, {
        token: scene.seller.token
      })
      seen.push(...page.body.data.messages.map((x) => x.message_text))
      if (!page.body.data.has_more) break
      before = `&before=${encodeURIComponent(page.body.data.messages.at(-1)!.created_at)}`
    }
    expect([...seen].sort()).toEqual([...texts].sort())
    const times = (
      await m.api.get(`/conversations/${scene.conversationId}/messages`, { token: scene.seller.token })
    ).body.data.messages.map((x) => x.created_at)
    expect(new Set(times).size).toBe(texts.length)
  })

  it("refuses a bad limit or before with 400", async () => {
    const m = market()
    const scene = await chatScene(m)
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?limit=abc",
      "?limit=2.5",
      "?before=yesterday",
      "?before=2025-13-01T00:00:00Z",
      "?before=1700000000"
    ] as const) {
      const response = await m.api.get(`/conversations/${scene.conversationId}/messages${query}`, {
        token: scene.buyer.token
      })
      expectError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details)).toEqual([query.slice(1).split("=")[0]])
    }
    const hundred = await m.api.get(`/conversations/${scene.conversationId}/messages?limit=100`, {
      token: scene.buyer.token
    })
    expect(hundred.status).toBe(200)
  })

  it("counts unread messages from the other party; reading the history marks them read", async () => {
    const m = market()
    const scene = await chatScene(m)
    await postMessage(m.api, scene.seller, scene.conversationId, "one")
    await postMessage(m.api, scene.seller, scene.conversationId, "two")
    await postMessage(m.api, scene.buyer, scene.conversationId, "mine")
    const unread = async (who: typeof scene.buyer) =>
      (await m.api.get("/conversations/my", { token: who.token })).body.data.conversations[0].unread_count

    expect(await unread(scene.buyer)).toBe(2)
    expect(await unread(scene.seller)).toBe(1)

    const read = await m.api.get(`/conversations/${scene.conversationId}/messages?limit=1`, {
      token: scene.buyer.token
    })
    expect(read.body.data.messages[0].read_at).toBeNull() // the buyer's own message is not marked by the buyer
    expect(await unread(scene.buyer)).toBe(0)
    expect(await unread(scene.seller)).toBe(1)

    const asSeller = await m.api.get(`/conversations/${scene.conversationId}/messages`, { token: scene.buyer.token })
    const bySeller = asSeller.body.data.messages.filter((x) => x.sender_id === scene.seller.userId)
    expect(bySeller.map((x) => x.read_at)).toEqual([expect.stringMatching(ISO_UTC), expect.stringMatching(ISO_UTC)])

    const outsider = await m.buyer("Outsider")
    await m.api.get(`/conversations/${scene.conversationId}/messages`, { token: outsider.token })
    expect(await unread(scene.seller)).toBe(1)
  })

  it("lists by last activity: a new message moves its conversation to the top; pages with page and per_page", async () => {
    const m = market()
    const buyer = await m.buyer("Busy Buyer")
    const first = await chatScene(m, { buyer })
    const second = await chatScene(m, { buyer })
    const third = await chatScene(m, { buyer })
    const ids = async (query: Query = "") =>
      (await m.api.get(`/conversations/my${query}`, { token: buyer.token })).body.data.conversations.map((c) => c.id)

    expect(await ids()).toEqual([third.conversationId, second.conversationId, first.conversationId])
    await postMessage(m.api, first.seller, first.conversationId, "still interested?")
    expect(await ids()).toEqual([first.conversationId, third.conversationId, second.conversationId])

    const listed = await m.api.get("/conversations/my", { token: buyer.token })
    expect(listed.body.data.conversations[0].last_message).toEqual({
      text: "still interested?",
      seq: 1,
      masked: false,
      created_at: expect.stringMatching(ISO_UTC)
    })
    expect(listed.body.data.conversations[0].unread_count).toBe(1)

    expect(await ids("?per_page=2")).toEqual([first.conversationId, third.conversationId])
    const page2 = await m.api.get("/conversations/my?per_page=2&page=2", { token: buyer.token })
    expect(page2.body.data.conversations.map((c) => c.id)).toEqual([second.conversationId])
    expect(page2.body.data.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2 })
    expect(await ids("?per_page=2&page=3")).toEqual([])

    // The seller side of a conversation is listed too: the first seller sees exactly theirs.
    const sellerList = await m.api.get("/conversations/my", { token: first.seller.token })
    expect(sellerList.body.data.conversations.map((c) => c.id)).toEqual([first.conversationId])

    for (const query of ["?per_page=51", "?per_page=0", "?page=0", "?page=x"] as const) {
      expectError(await m.api.get(`/conversations/my${query}`, { token: buyer.token }), 400, "VALIDATION_ERROR")
    }
  })
})
