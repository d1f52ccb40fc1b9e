import { describe, expect, it } from "vitest"
import { type MessageKind, TalabApiError } from "../src/index.js"
import { approvedSeller, postRequest, signedInClient, useTestServer } from "./support.js"

/** Bargaining through the SDK's typed calls, against the testkit's server. */
describe("bargaining calls", () => {
  const server = useTestServer()

  it("counters, revises with PATCH, reads the history and accepts the revision seen; a stale one is OFFER_CHANGED", async () => {
    const buyer = await signedInClient(server())
    const seller = await approvedSeller(server())
    const request = await postRequest(buyer.talab)
    const { data: offer } = await seller.talab.POST("/offers", {
      body: { request_id: request.id, price: 3000, availability: "Today" }
    })
    const id = { params: { path: { id: offer.id } } }

    const { data: counter } = await buyer.talab.POST("/offers/{id}/counter", { ...id, body: { price: 2700 } })
    expect(counter).toMatchObject({ offer_id: offer.id, price: 2700, note: null })
    const { data: revised } = await seller.talab.PATCH("/offers/{id}", { ...id, body: { price: 2850 } })
    expect(revised).toMatchObject({ price: 2850, revision: 2, counter: null })

    const stale = await buyer.talab
      .POST("/offers/{id}/accept", { ...id, body: { expected_revision: 1 } })
      .catch((e: unknown) => e)
    expect(stale).toBeInstanceOf(TalabApiError)
    expect(stale).toMatchObject({ code: "OFFER_CHANGED", status: 422, details: { revision: ["2"] } })

    const { data: accepted } = await buyer.talab.POST("/offers/{id}/accept", { ...id, body: { expected_revision: 2 } })
    const { data: deal } = await buyer.talab.GET("/deals/{id}", { params: { path: { id: accepted.deal.id } } })
    expect(deal.offer).toMatchObject({ price: 2850, revision: 2 })

    const { data: history } = await seller.talab.GET("/offers/{id}/history", id)
    expect(history.events.map((e) => [e.type, e.price, e.by, e.revision])).toEqual([
      ["created", 3000, "seller", 1],
      ["countered", 2700, "buyer", 1],
      ["revised", 2850, "seller", 2],
      ["accepted", 2850, "buyer", 2]
    ])

    const { data: conversations } = await buyer.talab.GET("/conversations/my")
    const conversation = conversations.conversations.find((c) => c.offer_id === offer.id)!
    const { data: page } = await buyer.talab.GET("/conversations/{id}/messages", {
      params: { path: { id: conversation.id } }
    })
    const kinds: Array<MessageKind> = page.messages.map((m) => m.kind)
    expect(kinds).toEqual(["revision", "counter"])
  })
})
