import { beforeAll, describe, expect, it } from "vitest"
import { anOfferBody, aRequestBody, expectError, market, useMarketServer } from "../support/flows.js"
import { backends, type Response, type SignedIn } from "../support/harness.js"
import { connectAs } from "../support/ws-client.js"

/*
 * Values at the edge (issue 8, item 5): money is a finite decimal with at most two places in (0, 1e9], or 400;
 * what a 201 echoes is what a later GET reads; texts refuse lone surrogates, controls and bidi overrides
 * (single-line texts also line breaks and invisible separators). Every refusal is read back: nothing changed.
 */

/** Money spellings as they appear in a JSON body (raw, so `5e-324` and `-0` reach the server as written). */
const badAmounts: ReadonlyArray<[string, string]> = [
  ["the smallest double", "5e-324"],
  ["a nano amount", "1e-9"],
  ["nine decimals", "1.000000001"],
  ["three decimals that round to two", "1.005"],
  ["a cent over the maximum", "1000000000.01"],
  ["a number JSON.parse reads as Infinity", "1e400"],
  ["minus infinity", "-1e400"],
  ["negative zero", "-0"],
  ["zero", "0"],
  ["a negative amount", "-5"],
  ["a numeric string", '"100"'],
  ["the string Infinity", '"Infinity"'],
  ["the string NaN", '"NaN"'],
  ["an exponent string", '"1e3"'],
  ["a boolean", "true"],
  ["an array", "[100]"]
]

/** Amounts that are valid, as written, with the number a client reads back. */
const goodAmounts: ReadonlyArray<[string, number]> = [
  ["0.01", 0.01],
  ["19.99", 19.99],
  ["1.10", 1.1],
  ["1e9", 1_000_000_000],
  ["999999999.99", 999_999_999.99],
  ["0.1", 0.1]
]

/** Characters refused in every text, one per class. */
const refusedEverywhere: ReadonlyArray<[string, string]> = [
  ["a lone high surrogate", "\uD800"],
  ["a lone low surrogate", "\uDC00"],
  ["a reversed surrogate pair", "\uDC00\uD800"],
  ["a C0 control (SOH)", "\u0001"],
  ["ESC", "\u001B"],
  ["DEL", "\u007F"],
  ["a C1 control (NEL)", "\u0085"],
  ["a C1 control (CSI)", "\u009B"],
  ["a lone carriage return", "\r"],
  ["a bidi embedding (LRE)", "\u202A"],
  ["a bidi override (RLO)", "\u202E"],
  ["a bidi isolate (LRI)", "\u2066"],
  ["a bidi isolate (FSI)", "\u2068"],
  ["a pop isolate (PDI)", "\u2069"],
  ["a line separator", "\u2028"],
  ["a paragraph separator", "\u2029"]
]

/** Characters refused in single-line texts only (free texts keep them). */
const refusedInLines: ReadonlyArray<[string, string]> = [
  ["a line feed", "\n"],
  ["CR LF", "\r\n"],
  ["a tab", "\t"],
  ["a zero-width space", "\u200B"],
  ["a word joiner", "\u2060"],
  ["a zero-width no-break space (BOM)", "\uFEFF"]
]

/** Characters every text keeps. */
const keptEverywhere: ReadonlyArray<[string, string]> = [
  ["a right-to-left mark", "\u200F"],
  ["a left-to-right mark", "\u200E"],
  ["an Arabic letter mark", "\u061C"],
  ["a zero-width joiner (emoji sequences)", "\u200D"],
  ["a zero-width non-joiner (Persian)", "\u200C"],
  ["an emoji (a surrogate pair)", "\uD83D\uDE00"]
]

/** Inside a text, so trimming cannot remove what is tested. */
const within = (character: string) => `A${character}B`

describe.each(backends)("values at the edge on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const api = () => m.api()

  let buyer: SignedIn
  let seller: SignedIn & { profileId: string }
  let newcomer: SignedIn
  let admin: SignedIn
  let requestId: string
  let acceptedDealId: string
  let completedDealId: string
  let acceptedDealBuyer: SignedIn
  let completedDealBuyer: SignedIn
  let conversationId: string
  let reportId: string

  beforeAll(async () => {
    buyer = await m.user("Buyer")
    seller = await m.seller("Seller")
    newcomer = await m.user("Newcomer")
    admin = await m.admin()
    requestId = (await m.request(buyer)).id
    const accepted = await m.deal()
    acceptedDealId = accepted.deal.id
    acceptedDealBuyer = accepted.buyer
    const completed = await m.completedDeal()
    completedDealId = completed.deal.id
    completedDealBuyer = completed.buyer
    const offerOnRequest = await m.offer(seller, requestId)
    const conversations = await api().get("/conversations/my?per_page=50", { token: buyer.token })
    conversationId = conversations.body.data.conversations.find((c: any) => c.offer_id === offerOnRequest.id).id
    const filed = await api().post("/reports", {
      token: buyer.token,
      body: { reported_user_id: seller.userId, reason: "scam", description: "first" }
    })
    reportId = m.expectStatus(filed, 201, "report").body.data.id
  }, 60_000)

  /** Everything the refused calls below could have touched, as the API shows it. */
  const snapshot = async () => {
    const read = async (path: string, token: string) => {
      const response = await api().get(path, { token })
      return { status: response.status, body: response.body }
    }
    return {
      buyer: await read("/users/me", buyer.token),
      newcomer: await read("/users/me", newcomer.token),
      seller: await read(`/seller-profiles/${seller.profileId}`, buyer.token),
      requests: await read("/requests/my?per_page=50", buyer.token),
      offers: await read(`/requests/${requestId}/offers`, buyer.token),
      myOffers: await read("/offers/my?per_page=50", seller.token),
      messages: await read(`/conversations/${conversationId}/messages`, buyer.token),
      reports: await read("/admin/reports?per_page=50", admin.token),
      acceptedDeal: await read(`/deals/${acceptedDealId}`, acceptedDealBuyer.token),
      completedDeal: await read(`/deals/${completedDealId}`, completedDealBuyer.token),
      pending: await read("/admin/seller-profiles/pending?per_page=50", admin.token)
    }
  }

  /** Sends a JSON body written by hand (numbers exactly as spelled). */
  const sendRaw = (method: "POST" | "PUT", path: string, token: string, json: string) =>
    api().call(method, path, { token, rawBody: json, headers: { "content-type": "application/json" } })

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

    it("refuses every amount that is not a finite decimal of at most two places in (0, 1,000,000,000] with 400, storing nothing", async () => {
      const before = await snapshot()
      for (const { field, send } of moneyFields) {
        for (const [what, amount] of badAmounts) {
          const response = await send(amount)
          expect(response.status, `${field} = ${amount} (${what}): ${JSON.stringify(response.body)}`).toBe(400)
          expectFieldRefused(response, field)
        }
      }
      expect(await snapshot()).toEqual(before)
    })

    it("names the rule broken, in the caller's language", async () => {
      const detailOf = async (amount: string, language: string) => {
        const response = await api().call("POST", "/offers", {
          token: seller.token,
          rawBody: `{"request_id":"${requestId}","price":${amount},"availability":"Today"}`,
          headers: { "content-type": "application/json", "accept-language": language }
        })
        return expectError(response, 400, "VALIDATION_ERROR").details.price
      }
      expect(await detailOf("1.000000001", "en")).toEqual(["At most 2 decimal places are allowed"])
      expect(await detailOf("5e-324", "en")).toEqual(["At most 2 decimal places are allowed"])
      expect(await detailOf("1000000000.01", "en")).toEqual(["Must be at most 1000000000"])
      expect(await detailOf("-0", "en")).toEqual(["Must be greater than zero"])
      expect((await detailOf("1.005", "ar"))?.[0]).toMatch(/[\u0600-\u06FF]/)
    })

    it("echoes in the 201 exactly what a later GET reads, for every valid spelling", async () => {
      for (const [spelling, expected] of goodAmounts) {
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
        expect(offers.body.data.offers.map((o: any) => o.price)).toEqual([expected])
        const mine = await api().get("/offers/my?per_page=50", { token: seller.token })
        expect(mine.body.data.offers.find((o: any) => o.id === offered.body.data.id).price).toBe(expected)
      }
    })
  })

  describe("texts", () => {
    /** A text field: how to send a value in it. */
    interface TextField {
      readonly field: string
      readonly send: (value: string) => Promise<Response>
    }

    const singleLine: ReadonlyArray<TextField> = [
      { field: "name", send: (v) => api().put("/users/me", { token: buyer.token, body: { name: v } }) },
      {
        field: "business_name",
        send: (v) =>
          api().post("/seller-profiles", {
            token: newcomer.token,
            body: { business_name: v, location_district: "Malaz" }
          })
      },
      {
        field: "location_district",
        send: (v) =>
          api().post("/seller-profiles", {
            token: newcomer.token,
            body: { business_name: "Shop", location_district: v }
          })
      },
      {
        field: "location_city",
        send: (v) => api().post("/requests", { token: buyer.token, body: aRequestBody({ location_city: v }) })
      },
      {
        field: "product_brand",
        send: (v) => api().post("/requests", { token: buyer.token, body: aRequestBody({ product_brand: v }) })
      },
      {
        field: "product_model",
        send: (v) => api().post("/requests", { token: buyer.token, body: aRequestBody({ product_model: v }) })
      },
      {
        field: "availability",
        send: (v) => api().post("/offers", { token: seller.token, body: anOfferBody(requestId, { availability: v }) })
      },
      {
        field: "reason",
        send: (v) =>
          api().put(`/deals/${acceptedDealId}/cancel`, { token: acceptedDealBuyer.token, body: { reason: v } })
      }
    ]

    const freeTexts: ReadonlyArray<TextField> = [
      {
        field: "notes",
        send: (v) => api().post("/requests", { token: buyer.token, body: aRequestBody({ notes: v }) })
      },
      {
        field: "bio",
        send: (v) =>
          api().post("/seller-profiles", {
            token: newcomer.token,
            body: { business_name: "Shop", location_district: "Malaz", bio: v }
          })
      },
      {
        field: "condition_notes",
        send: (v) =>
          api().post("/offers", { token: seller.token, body: anOfferBody(requestId, { condition_notes: v }) })
      },
      {
        field: "warranty_notes",
        send: (v) => api().post("/offers", { token: seller.token, body: anOfferBody(requestId, { warranty_notes: v }) })
      },
      {
        field: "description",
        send: (v) =>
          api().post("/reports", {
            token: buyer.token,
            body: { reported_user_id: seller.userId, reason: "scam", description: v }
          })
      },
      {
        field: "review_text",
        send: (v) =>
          api().post("/ratings", {
            token: completedDealBuyer.token,
            body: { deal_id: completedDealId, rating: 5, review_text: v }
          })
      },
      {
        field: "message_text",
        send: (v) =>
          api().post(`/conversations/${conversationId}/messages`, { token: buyer.token, body: { message_text: v } })
      },
      {
        field: "notes",
        send: (v) =>
          api().put(`/admin/reports/${reportId}/resolve`, { token: admin.token, body: { action: "dismiss", notes: v } })
      }
    ]

    it("refuses each forbidden character class in every single-line text with 400, changing nothing", async () => {
      const before = await snapshot()
      for (const { field, send } of singleLine) {
        for (const [what, character] of [...refusedEverywhere, ...refusedInLines]) {
          const response = await send(within(character))
          expect(response.status, `${field} with ${what}: ${JSON.stringify(response.body)}`).toBe(400)
          expectFieldRefused(response, field)
        }
      }
      expect(await snapshot()).toEqual(before)
    })

    it("refuses each forbidden character class in every free text with 400, changing nothing", async () => {
      const before = await snapshot()
      for (const { field, send } of freeTexts) {
        for (const [what, character] of refusedEverywhere) {
          const response = await send(within(character))
          expect(response.status, `${field} with ${what}: ${JSON.stringify(response.body)}`).toBe(400)
          expectFieldRefused(response, field)
        }
      }
      expect(await snapshot()).toEqual(before)
    })

    it("refuses them in a message sent over the WebSocket too, storing nothing", async () => {
      const socket = await connectAs(server().wsUrl, buyer.token)
      try {
        const before = await snapshot()
        for (const [what, character] of refusedEverywhere) {
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
      expect(messages.body.data.messages.map((message: any) => message.message_text)).toContain(
        "first line\r\n\tsecond"
      )
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

    it("keeps direction marks, joiners and emoji in every text", async () => {
      for (const [what, character] of keptEverywhere) {
        const name = within(character)
        const updated = await api().put("/users/me", { token: newcomer.token, body: { name } })
        expect(updated.status, `${what}: ${JSON.stringify(updated.body)}`).toBe(200)
        expect(updated.body.data.name).toBe(name)
        expect((await api().get("/users/me", { token: newcomer.token })).body.data.name).toBe(name)
        const posted = await api().post("/requests", {
          token: buyer.token,
          body: aRequestBody({ product_brand: name, notes: name })
        })
        expect(posted.status, `${what}: ${JSON.stringify(posted.body)}`).toBe(201)
        expect(posted.body.data).toMatchObject({ product_brand: name, notes: name })
      }
    })
  })
})
