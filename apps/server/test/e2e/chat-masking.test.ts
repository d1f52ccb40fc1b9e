import { afterEach, describe, expect, it } from "vitest"
import { chatScene, Marketplace, marketplaceSettings, postMessage } from "../support/fixtures.js"
import { backends, client, newPhone, type SignedIn, useServer } from "../support/harness.js"
import { connectAs, type WsClient } from "../support/ws-client.js"

/*
 * Contact details in chat (docs/DECISIONS.md, "Contact details in chat"): masked for the recipient until the
 * offer is accepted, everywhere the recipient reads a message (history, conversation list, WebSocket, push);
 * the sender always reads their own text; after the accept, both read what was stored.
 */
const CONTACT = "كلمني على 0501234567 أو ahmed@gmail.com"
const MASKED = "كلمني على *** أو ***"
const within = { timeout: 3_000, interval: 20 }

describe.each(backends)("contact details in chat on %s", (backend) => {
  const adminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone]))
  let shared: Marketplace | undefined
  const market = () => (shared ??= new Marketplace(server(), client(server()), adminPhone))
  const opened: Array<WsClient> = []
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })
  const subscribed = async (party: SignedIn, conversationId: string) => {
    const socket = await connectAs(server().wsUrl, party.token, [conversationId])
    opened.push(socket)
    return socket
  }
  const history = async (party: SignedIn, conversationId: string) =>
    (await market().api.get(`/conversations/${conversationId}/messages`, { token: party.token })).body.data.messages
  const lastMessageFor = async (party: SignedIn, conversationId: string) =>
    (await market().api.get("/conversations/my?per_page=50", { token: party.token })).body.data.conversations.find(
      (c) => c.id === conversationId
    )!.last_message

  it("masks them for the recipient in history, the conversation list and the WebSocket, not for the sender", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const buyerSocket = await subscribed(buyer, conversationId)
    const sellerSocket = await subscribed(seller, conversationId)

    const sent = await postMessage(market().api, seller, conversationId, CONTACT)
    expect(sent).toMatchObject({ message_text: CONTACT, masked: false })

    expect((await buyerSocket.nextOfType("message")).data).toMatchObject({ message_text: MASKED, masked: true })
    expect((await sellerSocket.nextOfType("message")).data).toMatchObject({ message_text: CONTACT, masked: false })
    expect(await history(buyer, conversationId)).toEqual([
      expect.objectContaining({ id: sent.id, message_text: MASKED, masked: true })
    ])
    expect(await history(seller, conversationId)).toEqual([
      expect.objectContaining({ id: sent.id, message_text: CONTACT, masked: false })
    ])
    expect(await lastMessageFor(buyer, conversationId)).toMatchObject({ text: MASKED, masked: true })
    expect(await lastMessageFor(seller, conversationId)).toMatchObject({ text: CONTACT, masked: false })
  })

  it("masks them for the seller too, when the buyer writes them", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const sellerSocket = await subscribed(seller, conversationId)
    await postMessage(market().api, buyer, conversationId, "wa.me/966501234567")
    expect((await sellerSocket.nextOfType("message")).data).toMatchObject({ message_text: "***", masked: true })
    expect((await history(seller, conversationId))[0]).toMatchObject({ message_text: "***", masked: true })
  })

  it("masks them in the catch-up of a subscribe with since_seq, and in the REST reads after_seq", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    await postMessage(market().api, seller, conversationId, CONTACT)
    const socket = await connectAs(server().wsUrl, buyer.token)
    opened.push(socket)
    socket.send({ type: "subscribe", channel: `conversation.${conversationId}`, since_seq: 0 })
    expect((await socket.nextOfType("message")).data).toMatchObject({ seq: 1, message_text: MASKED, masked: true })
    const after = await market().api.get(`/conversations/${conversationId}/messages?after_seq=0`, {
      token: buyer.token
    })
    expect(after.body.data.messages).toEqual([expect.objectContaining({ seq: 1, message_text: MASKED, masked: true })])
  })

  it("leaves a message without contact details as written, with masked false", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const text = "iPhone 15 Pro 256, السعر 3500 ريال"
    await postMessage(market().api, seller, conversationId, text)
    expect((await history(buyer, conversationId))[0]).toMatchObject({ message_text: text, masked: false })
  })

  it("masks them in the push to an offline recipient", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const registered = await market().api.post("/device-tokens", {
      token: buyer.token,
      body: { platform: "android", push_token: `masking-${backend}-${crypto.randomUUID()}` }
    })
    expect(registered.status).toBe(201)
    await postMessage(market().api, seller, conversationId, CONTACT)
    await expect
      .poll(
        () =>
          server()
            .pushes.to(buyer.userId)
            .filter((push) => push.type === "message"),
        within
      )
      .toEqual([expect.objectContaining({ body: MASKED })])
  })

  it("shows what was stored to both parties once the offer is accepted, old messages included", async () => {
    const { buyer, conversationId, offer, seller } = await chatScene(market())
    const before = await postMessage(market().api, seller, conversationId, CONTACT)
    await market().accept(buyer, offer.id)

    expect(await history(buyer, conversationId)).toEqual([
      expect.objectContaining({ id: before.id, message_text: CONTACT, masked: false })
    ])
    expect(await lastMessageFor(buyer, conversationId)).toMatchObject({ text: CONTACT, masked: false })
    const buyerSocket = await subscribed(buyer, conversationId)
    await postMessage(market().api, seller, conversationId, "0559876543")
    expect((await buyerSocket.nextOfType("message")).data).toMatchObject({ message_text: "0559876543", masked: false })
  })
})
