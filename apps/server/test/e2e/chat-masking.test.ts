import { afterEach, describe, expect, it } from "vitest"
import {
  ARABIC,
  chatScene,
  expectError,
  Marketplace,
  marketplaceSettings,
  postMessage,
  profileBody
} from "../support/fixtures.js"
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
/** The same number, disguised with Arabic-Indic digits and zero-width spaces between its groups. */
const DISGUISED = "رقمي ٠٥٠\u200B١٢٣\u200B٤٥٦٧"

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

  it("masks a number split over the sender's messages, live, in history and in the conversation list", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const buyerSocket = await subscribed(buyer, conversationId)
    await postMessage(market().api, seller, conversationId, "050 123")
    expect((await buyerSocket.nextOfType("message")).data).toMatchObject({ message_text: "050 123", masked: false })
    const second = await postMessage(market().api, seller, conversationId, "4567")
    expect(second).toMatchObject({ message_text: "4567", masked: false })
    expect((await buyerSocket.nextOfType("message")).data).toMatchObject({ message_text: "***", masked: true })
    expect((await history(buyer, conversationId)).map((m) => m.message_text)).toEqual(["***", "***"])
    expect((await history(seller, conversationId)).map((m) => m.message_text)).toEqual(["4567", "050 123"])
    expect(await lastMessageFor(buyer, conversationId)).toMatchObject({ text: "***", masked: true })
  })

  it("masks a disguised number in the WebSocket frame and the push preview", async () => {
    const { buyer, conversationId, seller } = await chatScene(market())
    const sellerSocket = await subscribed(seller, conversationId)
    const registered = await market().api.post("/device-tokens", {
      token: buyer.token,
      body: { platform: "ios", push_token: `masking-disguised-${backend}-${crypto.randomUUID()}` }
    })
    expect(registered.status).toBe(201)
    await postMessage(market().api, seller, conversationId, DISGUISED)
    await expect
      .poll(
        () =>
          server()
            .pushes.to(buyer.userId)
            .filter((push) => push.type === "message"),
        within
      )
      .toEqual([expect.objectContaining({ body: "رقمي ***" })])
    const buyerSocket = await subscribed(buyer, conversationId)
    await postMessage(market().api, seller, conversationId, "snap: ali_shop")
    expect((await buyerSocket.nextOfType("message")).data).toMatchObject({ message_text: "snap: ***", masked: true })
    await sellerSocket.nextOfType("message")
    expect((await sellerSocket.nextOfType("message")).data).toMatchObject({ message_text: "snap: ali_shop" })
  })

  it("masks an offer's texts for the buyer until it is accepted; its seller reads them as written", async () => {
    const buyer = await market().buyer("Buyer")
    const seller = await market().approvedSeller("Seller")
    const written = {
      availability: "اليوم، واتساب 0501234567",
      condition_notes: "ممتازة، snap: ali_shop",
      warranty_notes: "ali at gmail dot com"
    }
    const { offer, request } = await market().pendingOffer(buyer, seller, written)
    const offersAs = async (party: SignedIn) =>
      (await market().api.get(`/requests/${request.id}/offers`, { token: party.token })).body.data.offers
    expect(await offersAs(buyer)).toEqual([
      expect.objectContaining({
        id: offer.id,
        availability: "اليوم، واتساب ***",
        condition_notes: "ممتازة، snap: ***",
        warranty_notes: "***"
      })
    ])
    expect(await offersAs(seller)).toEqual([expect.objectContaining(written)])
    await market().accept(buyer, offer.id)
    expect(await offersAs(buyer)).toEqual([expect.objectContaining(written)])
  })

  it("masks a request's notes for sellers; its buyer, and the seller of its deal, read them as written", async () => {
    const buyer = await market().buyer("Buyer")
    const seller = await market().approvedSeller("Seller")
    const other = await market().approvedSeller("Other Seller")
    const notes = "256GB، 87% battery، تواصل ٠٥٠ ١٢٣ ٤٥٦٧"
    const request = await market().createRequest(buyer, { notes })
    const notesAs = async (party: SignedIn) =>
      (await market().api.get(`/requests/${request.id}`, { token: party.token })).body.data.notes
    expect(await notesAs(seller)).toBe("256GB، 87% battery، تواصل ***")
    expect(await notesAs(buyer)).toBe(notes)
    const offer = await market().offer(seller, request.id)
    await market().accept(buyer, offer.id)
    expect(await notesAs(seller)).toBe(notes)
    expect(await notesAs(other)).toBe("256GB، 87% battery، تواصل ***")
  })

  it("refuses a name, business name or bio holding a contact detail, naming the field in the user's language", async () => {
    const user = await market().buyer("Ali")
    const en = { "accept-language": "en" }
    const named = expectError(
      await market().api.raw.put("/users/me", { token: user.token, body: { name: "Ali ٠٥٠١٢٣٤٥٦٧" }, headers: en }),
      400,
      "VALIDATION_ERROR",
      ["name"]
    )
    expect(named.details.name).toEqual(["Must not contain a phone number, e-mail address, link or social media handle"])
    const arabic = expectError(
      await market().api.put("/users/me", { token: user.token, body: { name: "ali@gmail" } }),
      400,
      "VALIDATION_ERROR",
      ["name"]
    )
    expect(arabic.details.name![0]).toMatch(ARABIC)
    expect((await market().api.get("/users/me", { token: user.token })).body.data.name).toBe("Ali")
    for (const [field, value] of [
      ["business_name", "WhatsApp 0501234567"],
      ["bio", "تابعونا انستا ali.shop"]
    ] as const) {
      expectError(
        await market().api.raw.post("/seller-profiles", {
          token: user.token,
          body: profileBody({ [field]: value }),
          headers: en
        }),
        400,
        "VALIDATION_ERROR",
        [field]
      )
    }
    expect((await market().api.post("/seller-profiles", { token: user.token, body: profileBody() })).status).toBe(201)
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
