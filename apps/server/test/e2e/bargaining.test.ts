import { afterEach, describe, expect, it } from "vitest"
import {
  conversationOfOffer,
  expectError,
  ISO_UTC,
  keysOf,
  market,
  postMessage,
  UUID,
  unknownId,
  useMarketServer
} from "../support/fixtures.js"
import { bothBackends, type SignedIn } from "../support/harness.js"
import { connectAs, type WsClient } from "../support/ws-client.js"

/** Pushes leave in the background: wait for them. */
const within = { timeout: 3_000, interval: 20 }

/** Bargaining on an offer: counters, revisions, the history, accepting the revision seen, and the chat. */
describe.each(bothBackends)("bargaining on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const sockets: Array<WsClient> = []
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close()
  })

  /** A buyer's request with a seller's pending offer at 1500 (revision 1). */
  const scene = async () => {
    const buyer = await m.user("Huda")
    const seller = await m.seller("Fahad", { business_name: "Malaz Mobiles" })
    const request = await m.request(buyer)
    const offer = await m.offer(seller, request.id)
    return { buyer, seller, request, offer }
  }

  const counter = (user: SignedIn, offerId: string, body: Record<string, unknown>, language?: string) =>
    m.api().post(`/offers/${offerId}/counter`, {
      token: user.token,
      body: body as never,
      ...(language === undefined ? {} : { headers: { "accept-language": language } })
    })
  const revise = (user: SignedIn, offerId: string, body: Record<string, unknown>) =>
    m.api().patch(`/offers/${offerId}`, { token: user.token, body: body as never })
  const accept = (user: SignedIn, offerId: string, body?: Record<string, unknown>) =>
    m
      .api()
      .post(`/offers/${offerId}/accept`, { token: user.token, ...(body === undefined ? {} : { body: body as never }) })
  const history = async (user: SignedIn, offerId: string) =>
    m.expectStatus(await m.api().get(`/offers/${offerId}/history`, { token: user.token }), 200, "history").body.data
      .events
  /** The offer as its buyer's list shows it. */
  const offerAsListed = async (buyer: SignedIn, requestId: string, offerId: string) => {
    const listed = (await m.api().get(`/requests/${requestId}/offers`, { token: buyer.token })).body.data.offers
    const found = listed.find((o) => o.id === offerId)
    if (found === undefined) throw new Error(`offer ${offerId} not listed`)
    return found
  }
  const mine = async (seller: SignedIn, offerId: string) =>
    (await m.api().get("/offers/my?per_page=50", { token: seller.token })).body.data.offers.find(
      (o) => o.id === offerId
    )
  const messagesOf = async (user: SignedIn, conversationId: string) =>
    (await m.api().get(`/conversations/${conversationId}/messages?limit=100`, { token: user.token })).body.data.messages

  describe("POST /offers/{id}/counter", () => {
    it("lets the buyer counter: 201 with the counter; the offer shows it, its price and revision unchanged", async () => {
      const { buyer, offer, request, seller } = await scene()
      const response = await counter(buyer, offer.id, { price: 1300, note: "Would you take 1300?" })
      expect(response.status).toBe(201)
      expect(keysOf(response.body.data)).toEqual(["created_at", "id", "note", "offer_id", "price"])
      expect(response.body.data).toEqual({
        id: expect.stringMatching(UUID),
        offer_id: offer.id,
        price: 1300,
        note: "Would you take 1300?",
        created_at: expect.stringMatching(ISO_UTC)
      })
      const shown = { price: 1300, note: "Would you take 1300?", created_at: response.body.data.created_at }
      expect(await offerAsListed(buyer, request.id, offer.id)).toMatchObject({
        price: 1500,
        revision: 1,
        counter: shown
      })
      expect(await mine(seller, offer.id)).toMatchObject({ price: 1500, revision: 1, counter: shown })
    })

    it("takes the note as optional; a new counter replaces the last; a fourth is 422 COUNTER_LIMIT_REACHED", async () => {
      const { buyer, offer, request, seller } = await scene()
      const first = await counter(buyer, offer.id, { price: 1200 })
      expect(first.status).toBe(201)
      expect(first.body.data.note).toBeNull()
      expect((await counter(buyer, offer.id, { price: 1250, note: null })).status).toBe(201)
      const third = m.expectStatus(await counter(buyer, offer.id, { price: 1300.5, note: "last" }), 201, "third")
      expect((await offerAsListed(buyer, request.id, offer.id)).counter).toEqual({
        price: 1300.5,
        note: "last",
        created_at: third.body.data.created_at
      })
      for (const language of ["en", "ar"]) {
        const error = expectError(
          await counter(buyer, offer.id, { price: 1400 }, language),
          422,
          "COUNTER_LIMIT_REACHED"
        )
        expect(error.message).toBe(
          language === "en"
            ? "You already countered this offer the most times allowed (3)"
            : "وصلت إلى الحد الأقصى لعروض الأسعار المضادة على هذا العرض (3)"
        )
      }
      expect((await offerAsListed(buyer, request.id, offer.id)).counter?.price).toBe(1300.5)
      expect((await history(seller, offer.id)).filter((e) => e.type === "countered").map((e) => e.price)).toEqual([
        1200, 1250, 1300.5
      ])
      // A revision clears the counter, not the count.
      m.expectStatus(await revise(seller, offer.id, { price: 1450 }), 200, "revise")
      expectError(await counter(buyer, offer.id, { price: 1400 }), 422, "COUNTER_LIMIT_REACHED")
    })

    it("refuses everybody but the request's owner with 403, changing nothing", async () => {
      const { buyer, offer, request, seller } = await scene()
      const stranger = await m.user()
      const otherSeller = await m.seller()
      await m.offer(otherSeller, request.id)
      for (const user of [seller, stranger, otherSeller]) {
        expectError(await counter(user, offer.id, { price: 1300 }), 403, "FORBIDDEN")
      }
      expect((await offerAsListed(buyer, request.id, offer.id)).counter).toBeNull()
      expect((await history(buyer, offer.id)).map((e) => e.type)).toEqual(["created"])
    })

    it("answers 404 for an unknown offer and 401 without a token", async () => {
      const { buyer } = await scene()
      expectError(await counter(buyer, unknownId(), { price: 1300 }), 404, "NOT_FOUND")
      expectError(await m.api().raw.post(`/offers/${unknownId()}/counter`, { body: { price: 1 } }), 401, "UNAUTHORIZED")
    })

    it("refuses a withdrawn offer with 422 OFFER_NOT_PENDING, and a closed request with 422 REQUEST_NOT_ACTIVE", async () => {
      const { buyer, offer, request, seller } = await scene()
      m.expectStatus(await m.api().delete(`/offers/${offer.id}`, { token: seller.token }), 200, "withdraw")
      expectError(await counter(buyer, offer.id, { price: 1300 }), 422, "OFFER_NOT_PENDING")

      const other = await scene()
      m.expectStatus(
        await m.api().put(`/requests/${other.request.id}/close`, { token: other.buyer.token }),
        200,
        "close"
      )
      expectError(await counter(other.buyer, other.offer.id, { price: 1300 }), 422, "REQUEST_NOT_ACTIVE")

      const accepted = await scene()
      await m.accept(accepted.buyer, accepted.offer.id)
      expectError(await counter(accepted.buyer, accepted.offer.id, { price: 1300 }), 422, "REQUEST_NOT_ACTIVE")
      expect((await history(buyer, offer.id)).map((e) => e.type)).toEqual(["created", "withdrawn"])
      expect(request.id).toBeDefined()
    })

    it("refuses a bad price or note with 400 VALIDATION_ERROR on the field, changing nothing", async () => {
      const { buyer, offer, request } = await scene()
      const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
        [{}, "price"],
        [{ price: 0 }, "price"],
        [{ price: -5 }, "price"],
        [{ price: 10.001 }, "price"],
        [{ price: "1300" }, "price"],
        [{ price: 2_000_000_000 }, "price"],
        [{ price: 1300, note: "x".repeat(501) }, "note"],
        [{ price: 1300, note: "call me on 0501234567" }, "note"],
        [{ price: 1300, note: 5 }, "note"]
      ]
      for (const [body, field] of cases) {
        expectError(await counter(buyer, offer.id, body), 400, "VALIDATION_ERROR", [field])
      }
      expect((await offerAsListed(buyer, request.id, offer.id)).counter).toBeNull()
    })

    it("pushes offer_countered to the seller in the seller's language, with the counter's price", async () => {
      for (const language of ["en", "ar"] as const) {
        const { buyer, offer, request, seller } = await scene()
        m.expectStatus(await m.api().put("/users/me", { token: seller.token, body: { language } }), 200, "language")
        const token = `seller-${language}-${Math.random().toString(36).slice(2)}`
        m.expectStatus(
          await m
            .api()
            .post("/device-tokens", { token: seller.token, body: { platform: "android", push_token: token } }),
          201,
          "device"
        )
        const made = m.expectStatus(await counter(buyer, offer.id, { price: 1325 }), 201, "counter").body.data
        const conversationId = await conversationOfOffer(m.api(), buyer, offer.id)
        await expect
          .poll(
            () =>
              server()
                .pushes.to(seller.userId)
                .filter((p) => p.type === "offer_countered"),
            within
          )
          .toEqual([
            expect.objectContaining({
              pushToken: token,
              title: language === "en" ? "A counter-offer on your offer" : "سعر مقترح على عرضك",
              body:
                language === "en" ? "Huda proposes 1,325 for Apple iPhone 15" : "يقترح Huda 1,325 على Apple iPhone 15",
              data: { request_id: request.id, offer_id: offer.id, conversation_id: conversationId, counter_id: made.id }
            })
          ])
        expect(
          server()
            .pushes.to(buyer.userId)
            .filter((p) => p.type === "offer_countered")
        ).toEqual([])
      }
    })
  })

  describe("PATCH /offers/{id}", () => {
    it("lets the seller revise: 200 with the offer at the next revision, its counter cleared", async () => {
      const { buyer, offer, request, seller } = await scene()
      m.expectStatus(await counter(buyer, offer.id, { price: 1300 }), 201, "counter")
      const response = await revise(seller, offer.id, { price: 1400 })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({ ...offer, price: 1400, revision: 2, counter: null })
      expect(await offerAsListed(buyer, request.id, offer.id)).toMatchObject({
        price: 1400,
        revision: 2,
        counter: null
      })

      const texts = await revise(seller, offer.id, {
        availability: "Tomorrow morning",
        condition_notes: null,
        warranty_notes: "1 year"
      })
      expect(texts.body.data).toMatchObject({
        price: 1400,
        revision: 3,
        availability: "Tomorrow morning",
        condition_notes: null,
        warranty_notes: "1 year"
      })
      // A counter after a revision is on the table again.
      m.expectStatus(await counter(buyer, offer.id, { price: 1350 }), 201, "counter again")
      expect((await offerAsListed(buyer, request.id, offer.id)).counter?.price).toBe(1350)
    })

    it("refuses a body with none of the fields with 400 on body, and bad fields on the field, changing nothing", async () => {
      const { buyer, offer, request, seller } = await scene()
      for (const body of [{}, { colour: "red" }, { photo: "x", revision: 5 }]) {
        const error = expectError(await revise(seller, offer.id, body), 400, "VALIDATION_ERROR", ["body"])
        expect(error.details.body).toEqual([
          expect.stringContaining("price, availability, condition_notes, warranty_notes")
        ])
      }
      expectError(await m.api().raw.patch(`/offers/${offer.id}`, { token: seller.token }), 400, "VALIDATION_ERROR")
      const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
        [{ price: 0 }, "price"],
        [{ price: "x" }, "price"],
        [{ availability: "" }, "availability"],
        [{ availability: null }, "availability"],
        [{ condition_notes: "x".repeat(2001) }, "condition_notes"],
        [{ warranty_notes: 3 }, "warranty_notes"]
      ]
      for (const [body, field] of cases) {
        expectError(await revise(seller, offer.id, body), 400, "VALIDATION_ERROR", [field])
      }
      expect(await offerAsListed(buyer, request.id, offer.id)).toMatchObject({ price: 1500, revision: 1 })
    })

    it("refuses everybody but the offer's seller with 403, and an unknown offer with 404", async () => {
      const { buyer, offer, request } = await scene()
      const otherSeller = await m.seller()
      await m.offer(otherSeller, request.id)
      for (const user of [buyer, otherSeller, await m.user()]) {
        expectError(await revise(user, offer.id, { price: 1 }), 403, "FORBIDDEN")
      }
      expectError(await revise(buyer, unknownId(), { price: 1 }), 404, "NOT_FOUND")
      expect(await offerAsListed(buyer, request.id, offer.id)).toMatchObject({ price: 1500, revision: 1 })
    })

    it("refuses an offer that is not pending with 422 OFFER_NOT_PENDING", async () => {
      const withdrawn = await scene()
      m.expectStatus(
        await m.api().delete(`/offers/${withdrawn.offer.id}`, { token: withdrawn.seller.token }),
        200,
        "withdraw"
      )
      expectError(await revise(withdrawn.seller, withdrawn.offer.id, { price: 1 }), 422, "OFFER_NOT_PENDING")

      const accepted = await scene()
      await m.accept(accepted.buyer, accepted.offer.id)
      expectError(await revise(accepted.seller, accepted.offer.id, { price: 1 }), 422, "OFFER_NOT_PENDING")

      const closed = await scene()
      m.expectStatus(
        await m.api().put(`/requests/${closed.request.id}/close`, { token: closed.buyer.token }),
        200,
        "close"
      )
      expectError(await revise(closed.seller, closed.offer.id, { price: 1 }), 422, "OFFER_NOT_PENDING")
    })

    it("pushes offer_revised to the buyer in the buyer's language", async () => {
      for (const language of ["en", "ar"] as const) {
        const { buyer, offer, request, seller } = await scene()
        m.expectStatus(await m.api().put("/users/me", { token: buyer.token, body: { language } }), 200, "language")
        m.expectStatus(
          await m.api().post("/device-tokens", {
            token: buyer.token,
            body: { platform: "ios", push_token: `buyer-${language}-${Math.random().toString(36).slice(2)}` }
          }),
          201,
          "device"
        )
        m.expectStatus(await revise(seller, offer.id, { price: 1420 }), 200, "revise")
        await expect
          .poll(
            () =>
              server()
                .pushes.to(buyer.userId)
                .filter((p) => p.type === "offer_revised"),
            within
          )
          .toEqual([
            expect.objectContaining({
              title: language === "en" ? "An offer on your request was revised" : "تم تعديل عرض على طلبك",
              body:
                language === "en"
                  ? "Malaz Mobiles revised their offer for Apple iPhone 15: 1,420"
                  : "عدّل Malaz Mobiles عرضه على Apple iPhone 15: 1,420",
              data: expect.objectContaining({ request_id: request.id, offer_id: offer.id })
            })
          ])
        expect(
          server()
            .pushes.to(seller.userId)
            .filter((p) => p.type === "offer_revised")
        ).toEqual([])
      }
    })
  })

  describe("GET /offers/{id}/history", () => {
    it("shows both parties every move, oldest first, to the accept at the price and revision accepted", async () => {
      const { buyer, offer, seller } = await scene()
      m.expectStatus(await counter(buyer, offer.id, { price: 1200 }), 201, "counter")
      m.expectStatus(await revise(seller, offer.id, { price: 1400 }), 200, "revise")
      m.expectStatus(await counter(buyer, offer.id, { price: 1300 }), 201, "counter")
      m.expectStatus(await revise(seller, offer.id, { price: 1350 }), 200, "revise")
      m.expectStatus(await accept(buyer, offer.id, { expected_revision: 3 }), 200, "accept")
      const events = await history(buyer, offer.id)
      expect(events.map((e) => [e.type, e.price, e.by, e.revision])).toEqual([
        ["created", 1500, "seller", 1],
        ["countered", 1200, "buyer", 1],
        ["revised", 1400, "seller", 2],
        ["countered", 1300, "buyer", 2],
        ["revised", 1350, "seller", 3],
        ["accepted", 1350, "buyer", 3]
      ])
      for (const event of events) {
        expect(keysOf(event)).toEqual(["by", "created_at", "price", "revision", "type"])
        expect(event.created_at).toMatch(ISO_UTC)
      }
      expect(events.map((e) => e.created_at)).toEqual([...events.map((e) => e.created_at)].sort())
      expect(await history(seller, offer.id)).toEqual(events)
    })

    it("ends a rival's history rejected when another offer is accepted, and a withdrawn one withdrawn", async () => {
      const { buyer, offer, request } = await scene()
      const rival = await m.seller()
      const rivalOffer = await m.offer(rival, request.id, { price: 1700 })
      m.expectStatus(await revise(rival, rivalOffer.id, { price: 1650 }), 200, "revise")
      await m.accept(buyer, offer.id)
      expect((await history(rival, rivalOffer.id)).map((e) => [e.type, e.price, e.by, e.revision])).toEqual([
        ["created", 1700, "seller", 1],
        ["revised", 1650, "seller", 2],
        ["rejected", 1650, "buyer", 2]
      ])
    })

    it("refuses everybody else with 403 and an unknown offer with 404", async () => {
      const { buyer, offer, request } = await scene()
      const rival = await m.seller()
      await m.offer(rival, request.id)
      for (const user of [rival, await m.user()]) {
        expectError(await m.api().get(`/offers/${offer.id}/history`, { token: user.token }), 403, "FORBIDDEN")
      }
      expectError(await m.api().get(`/offers/${unknownId()}/history`, { token: buyer.token }), 404, "NOT_FOUND")
    })
  })

  describe("POST /offers/{id}/accept with expected_revision", () => {
    it("accepts the revision the buyer saw; the deal keeps its price and revision", async () => {
      const { buyer, offer, seller } = await scene()
      m.expectStatus(await revise(seller, offer.id, { price: 1400 }), 200, "revise")
      const response = await accept(buyer, offer.id, { expected_revision: 2 })
      expect(response.status).toBe(200)
      const deal = response.body.data.deal
      const detail = (await m.api().get(`/deals/${deal.id}`, { token: buyer.token })).body.data
      expect(detail.offer).toMatchObject({ id: offer.id, price: 1400, revision: 2, status: "accepted" })
      const listed = (await m.api().get("/deals/my", { token: seller.token })).body.data.deals
      expect(listed.find((d) => d.id === deal.id)?.offer).toEqual({ id: offer.id, price: 1400, revision: 2 })
    })

    it("refuses a revision that is no longer the offer's with 422 OFFER_CHANGED and its revision, accepting nothing", async () => {
      const { buyer, offer, request, seller } = await scene()
      m.expectStatus(await revise(seller, offer.id, { price: 1600 }), 200, "revise")
      for (const [expected, language] of [
        [1, "en"],
        [3, "ar"]
      ] as const) {
        const response = await m.api().post(`/offers/${offer.id}/accept`, {
          token: buyer.token,
          body: { expected_revision: expected },
          headers: { "accept-language": language }
        })
        const error = expectError(response, 422, "OFFER_CHANGED", ["revision"])
        expect(error.details).toEqual({ revision: ["2"] })
        expect(error.message).toBe(
          language === "en"
            ? "The seller revised the offer after you saw it; review the current offer, then accept it"
            : "عدّل البائع العرض بعد أن اطلعت عليه؛ راجع العرض الحالي ثم اقبله"
        )
      }
      expect(await offerAsListed(buyer, request.id, offer.id)).toMatchObject({ status: "pending", price: 1600 })
      expect((await m.api().get(`/requests/${request.id}`, { token: buyer.token })).body.data.status).toBe("active")
      expect((await m.api().get("/deals/my", { token: buyer.token })).body.data.deals).toEqual([])
    })

    it("without a body, or with an empty one, accepts as the spec says", async () => {
      const a = await scene()
      m.expectStatus(await revise(a.seller, a.offer.id, { price: 1400 }), 200, "revise")
      expect((await accept(a.buyer, a.offer.id)).status).toBe(200)
      const b = await scene()
      expect((await accept(b.buyer, b.offer.id, {})).status).toBe(200)
    })

    it("refuses a bad expected_revision with 400 and accepts nothing", async () => {
      const { buyer, offer, request } = await scene()
      for (const expected of [0, -1, 1.5, "1", true]) {
        expectError(await accept(buyer, offer.id, { expected_revision: expected }), 400, "VALIDATION_ERROR", [
          "expected_revision"
        ])
      }
      expect((await offerAsListed(buyer, request.id, offer.id)).status).toBe("pending")
    })
  })

  describe("the chat", () => {
    it("shows counters and revisions in the offer's conversation over REST, with their kind and price, in order", async () => {
      const { buyer, offer, seller } = await scene()
      const conversationId = await conversationOfOffer(m.api(), buyer, offer.id)
      await postMessage(m.api(), buyer, conversationId, "Hello, is it still available?")
      m.expectStatus(await counter(buyer, offer.id, { price: 1300, note: "Cash today" }), 201, "counter")
      await postMessage(m.api(), seller, conversationId, "Let me think")
      m.expectStatus(await revise(seller, offer.id, { price: 1400 }), 200, "revise")
      const messages = await messagesOf(buyer, conversationId)
      const bySeq = [...messages].sort((a, b) => a.seq - b.seq)
      expect(bySeq.map((msg) => [msg.seq, msg.kind, msg.sender_id])).toEqual([
        [1, "text", buyer.userId],
        [2, "counter", buyer.userId],
        [3, "text", seller.userId],
        [4, "revision", seller.userId]
      ])
      expect(bySeq[1]!.message_text).toBe("سعر مقترح من المشتري: 1,300\nCash today")
      expect(bySeq[3]!.message_text).toContain("1,400")
      const list = (await m.api().get("/conversations/my", { token: seller.token })).body.data.conversations
      expect(list.find((c) => c.id === conversationId)?.last_message?.seq).toBe(4)
    })

    it("delivers a counter and a revision live over the WebSocket, as messages with their kind and seq", async () => {
      const { buyer, offer, seller } = await scene()
      const conversationId = await conversationOfOffer(m.api(), buyer, offer.id)
      const sellerSocket = await connectAs(server().wsUrl, seller.token, [conversationId])
      const buyerSocket = await connectAs(server().wsUrl, buyer.token, [conversationId])
      sockets.push(sellerSocket, buyerSocket)
      m.expectStatus(await counter(buyer, offer.id, { price: 1300 }), 201, "counter")
      const countered = await sellerSocket.nextOfType("message")
      expect(countered.data).toMatchObject({
        conversation_id: conversationId,
        seq: 1,
        sender_id: buyer.userId,
        kind: "counter",
        message_text: "سعر مقترح من المشتري: 1,300"
      })
      expect((await buyerSocket.nextOfType("message")).data.seq).toBe(1)
      m.expectStatus(await revise(seller, offer.id, { price: 1450 }), 200, "revise")
      const revised = await buyerSocket.nextOfType("message")
      expect(revised.data).toMatchObject({ seq: 2, sender_id: seller.userId, kind: "revision" })
      expect(revised.data.message_text).toContain("1,450")
    })
  })
})
