import { beforeAll, describe, expect, it } from "vitest"
import { aRequestBody, expectError, market, useMarketServer } from "../support/fixtures.js"
import { backends, type Response, type SignedIn } from "../support/harness.js"
import { connectAs } from "../support/ws-client.js"

/*
 * Values at the edge: money is a finite decimal with at most two places in (0, 1e9], or 400;
 * what a 201 echoes is what a later GET reads; texts refuse lone surrogates, controls and bidi overrides
 * (single-line texts also line breaks and invisible separators). Every refusal is read back: nothing changed.
 *
 * Each amount, and each character class in each text field, is a unit test of the endpoints' schemas
 * (packages/contract/test/field-rules.test.ts, "money: amounts" and "texts: refused and kept characters"). What stays
 * here needs the server: spellings only its JSON parser turns into a number, the database's NUMERIC and text round
 * trips, the WebSocket's frames.
 */

/** Amounts whose JSON spelling is the point: the parser reads them as 5e-324, -0 and ±Infinity. */
const rawAmounts: ReadonlyArray<[string, string]> = [
  ["the smallest double", "5e-324"],
  ["negative zero", "-0"],
  ["a number JSON.parse reads as Infinity", "1e400"],
  ["minus infinity", "-1e400"]
]

/** Valid amounts, as written, with the number a client reads back after a round trip through NUMERIC. */
const echoedAmounts: ReadonlyArray<[string, number]> = [
  ["0.1", 0.1],
  ["1.10", 1.1],
  ["1e9", 1_000_000_000],
  ["999999999.99", 999_999_999.99]
]

/** Refused in every text: one class per kind of check (a lone surrogate, a control, a bidi override). */
const refusedOverWebSocket: ReadonlyArray<[string, string]> = [
  ["a lone high surrogate", "\uD800"],
  ["a C0 control (SOH)", "\u0001"],
  ["a bidi override (RLO)", "\u202E"]
]

/** Characters every text keeps, all in one text: direction marks, joiners, an emoji (a surrogate pair). */
const kept = "A\u200F\u200E\u061C\u200D\u200C\uD83D\uDE00B"

/** Inside a text, so trimming cannot remove what is tested. */
const within = (character: string) => `A${character}B`

describe.each(backends)("values at the edge on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const api = () => m.api()

  let buyer: SignedIn
  let seller: SignedIn & { profileId: string }
  let newcomer: SignedIn
  let requestId: string
  let conversationId: string

  beforeAll(async () => {
    buyer = await m.user("Buyer")
    seller = await m.seller("Seller")
    newcomer = await m.user("Newcomer")
    requestId = (await m.request(buyer)).id
    const offerOnRequest = await m.offer(seller, requestId)
    const conversations = await api().get("/conversations/my?per_page=50", { token: buyer.token })
    conversationId = conversations.body.data.conversations.find((c) => c.offer_id === offerOnRequest.id)!.id
  }, 60_000)

  /** Everything the refused calls below could have touched, as the API shows it. */
  const snapshot = async () => {
    const read = async (response: Promise<Response<unknown>>) => {
      const { status, body } = await response
      return { status, body }
    }
    return {
      buyer: await read(api().get("/users/me", { token: buyer.token })),
      newcomer: await read(api().get("/users/me", { token: newcomer.token })),
      seller: await read(api().get(`/seller-profiles/${seller.profileId}`, { token: buyer.token })),
      requests: await read(api().get("/requests/my?per_page=50", { token: buyer.token })),
      offers: await read(api().get(`/requests/${requestId}/offers`, { token: buyer.token })),
      myOffers: await read(api().get("/offers/my?per_page=50", { token: seller.token })),
      messages: await read(api().get(`/conversations/${conversationId}/messages`, { token: buyer.token }))
    }
  }

  /** Sends a JSON body written by hand (numbers exactly as spelled). */
  const sendRaw = (method: "POST" | "PUT", path: string, token: string, json: string) =>
    api().raw.call(method, path, { token, rawBody: json, headers: { "content-type": "application/json" } })

  const expectFieldRefused = (response: Response, field: string) => {
    const error = expectError(response, 400, "VALIDATION_ERROR")
    expect(Object.keys(error.details), JSON.stringify(error.details)).toContain(field)
  }

  describe("money", () => {
    const moneyFields = [
      {
        field: "price",
        send: (amount: string) =>
          sendRaw(
            "POST",
            "/offers",
            seller.token,
            `{"request_id":"${requestId}","price":${amount},"availability":"Today"}`
          )
      },
      {
        field: "budget_min",
        send: (amount: string) =>
          sendRaw(
            "POST",
            "/requests",
            buyer.token,
            `{"category":"phone","budget_min":${amount},"budget_max":1000000000,"location_district":"Olaya"}`
          )
      },
      {
        field: "budget_max",
        send: (amount: string) =>
          sendRaw(
            "POST",
            "/requests",
            buyer.token,
            `{"category":"phone","budget_min":0.01,"budget_max":${amount},"location_district":"Olaya"}`
          )
      }
    ]

    it("refuses the amounts only the JSON parser makes (5e-324, -0, ±1e400) with 400 naming the field, storing nothing", async () => {
      const before = await snapshot()
      for (const { field, send } of moneyFields) {
        for (const [what, amount] of rawAmounts) {
          const response = await send(amount)
          expect(response.status, `${field} = ${amount} (${what}): ${JSON.stringify(response.body)}`).toBe(400)
          expectFieldRefused(response, field)
        }
      }
      expect(await snapshot()).toEqual(before)
    })

    it("names the rule broken, in the caller's language", async () => {
      const detailOf = async (amount: string, language: string) => {
        const response = await api().raw.call("POST", "/offers", {
          token: seller.token,
          rawBody: `{"request_id":"${requestId}","price":${amount},"availability":"Today"}`,
          headers: { "content-type": "application/json", "accept-language": language }
        })
        return expectError(response, 400, "VALIDATION_ERROR").details.price
      }
      expect(await detailOf("5e-324", "en")).toEqual(["At most 2 decimal places are allowed"])
      expect(await detailOf("-0", "en")).toEqual(["Must be greater than zero"])
      expect(await detailOf("1e400", "en")).toEqual(["Must be a number"])
      expect((await detailOf("-0", "ar"))?.[0]).toMatch(/[\u0600-\u06FF]/)
    })

    it("echoes in the 201 exactly what a later GET reads, for valid spellings", async () => {
      for (const [spelling, expected] of echoedAmounts) {
        const posted = await sendRaw(
          "POST",
          "/requests",
          buyer.token,
          `{"category":"phone","budget_min":${spelling},"budget_max":${spelling},"location_district":"Olaya"}`
        )
        m.expectStatus(posted, 201, `budget ${spelling}`)
        expect(posted.body.data.budget_min).toBe(expected)
        expect(posted.body.data.budget_max).toBe(expected)
        const read = await api().get(`/requests/${posted.body.data.id}`, { token: buyer.token })
        expect(read.body.data).toMatchObject({ budget_min: expected, budget_max: expected })

        const offered = await sendRaw(
          "POST",
          "/offers",
          seller.token,
          `{"request_id":"${posted.body.data.id}","price":${spelling},"availability":"Today"}`
        )
        m.expectStatus(offered, 201, `price ${spelling}`)
        expect(offered.body.data.price).toBe(expected)
        const offers = await api().get(`/requests/${posted.body.data.id}/offers`, { token: buyer.token })
        expect(offers.body.data.offers.map((o) => o.price)).toEqual([expected])
        const mine = await api().get("/offers/my?per_page=50", { token: seller.token })
        expect(mine.body.data.offers.find((o) => o.id === offered.body.data.id)!.price).toBe(expected)
      }
    })
  })

  describe("texts", () => {
    it("refuses a forbidden character in a text with 400 naming the field, changing nothing", async () => {
      const before = await snapshot()
      // A lone surrogate can only be sent as a JSON escape (\ud800): what the server's parser makes of it is refused.
      const name = await api().put("/users/me", { token: buyer.token, body: { name: within("\uD800") } })
      expect(name.status, JSON.stringify(name.body)).toBe(400)
      expectFieldRefused(name, "name")
      const message = await api().post(`/conversations/${conversationId}/messages`, {
        token: buyer.token,
        body: { message_text: within("\u202E") }
      })
      expect(message.status, JSON.stringify(message.body)).toBe(400)
      expectFieldRefused(message, "message_text")
      expect(await snapshot()).toEqual(before)
    })

    it("refuses forbidden characters in a message sent over the WebSocket, storing nothing", async () => {
      const socket = await connectAs(server().wsUrl, buyer.token)
      try {
        const before = await snapshot()
        for (const [what, character] of refusedOverWebSocket) {
          socket.send({ type: "message", conversation_id: conversationId, message_text: within(character) })
          const answer = await socket.next((frame) => frame.type === "error" || frame.type === "ack")
          expect(answer, what).toMatchObject({ type: "error", code: "VALIDATION_ERROR" })
        }
        expect(await snapshot()).toEqual(before)
        socket.send({ type: "message", conversation_id: conversationId, message_text: "first line\r\n\tsecond" })
        expect(await socket.next((frame) => frame.type === "error" || frame.type === "ack")).toMatchObject({
          type: "ack"
        })
      } finally {
        socket.close()
      }
      const messages = await api().get(`/conversations/${conversationId}/messages`, { token: buyer.token })
      expect(messages.body.data.messages.map((message) => message.message_text)).toContain("first line\r\n\tsecond")
    })

    it("keeps line breaks and tabs in free texts, and stores exactly what it echoes", async () => {
      const text = "first line\nsecond line\r\n\tindented \u200F\u0645\u0631\u062D\u0628\u0627"
      const sent = await api().post(`/conversations/${conversationId}/messages`, {
        token: buyer.token,
        body: { message_text: text }
      })
      m.expectStatus(sent, 201, "message")
      expect(sent.body.data.message_text).toBe(text)
      const posted = await api().post("/requests", { token: buyer.token, body: aRequestBody({ notes: text }) })
      m.expectStatus(posted, 201, "request")
      expect(posted.body.data.notes).toBe(text)
      expect((await api().get(`/requests/${posted.body.data.id}`, { token: buyer.token })).body.data.notes).toBe(text)
    })

    it("stores direction marks, joiners and emoji exactly as it echoes them", async () => {
      const name = kept
      const updated = await api().put("/users/me", { token: newcomer.token, body: { name } })
      expect(updated.status, JSON.stringify(updated.body)).toBe(200)
      expect(updated.body.data.name).toBe(name)
      expect((await api().get("/users/me", { token: newcomer.token })).body.data.name).toBe(name)
      const posted = await api().post("/requests", {
        token: buyer.token,
        body: aRequestBody({ product_brand: name, notes: name })
      })
      expect(posted.status, JSON.stringify(posted.body)).toBe(201)
      expect(posted.body.data).toMatchObject({ product_brand: name, notes: name })
      const read = await api().get(`/requests/${posted.body.data.id}`, { token: buyer.token })
      expect(read.body.data).toMatchObject({ product_brand: name, notes: name })
    })
  })
})
