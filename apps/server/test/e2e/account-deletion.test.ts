import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { expectError, ISO_UTC, market, marketSettings } from "../support/fixtures.js"
import { type Backend, bothBackends, type SignedIn, signInOverHttp, useServer } from "../support/harness.js"
import { connectAs } from "../support/ws-client.js"

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))

describe.each(bothBackends)("a user's export and deletion on %s", (backend: Backend) => {
  const server = useServer(backend, { settings: marketSettings })
  const m = market(server)
  const api = () => m.api()

  /** A code sent to the user's own number just now, as the app asks for one before deleting. */
  const freshCode = async (user: SignedIn) => {
    m.expectStatus(await api().post("/auth/request-otp", { body: { phone_number: user.phone } }), 200, "request-otp")
    return server().sms.lastCode(user.phone)!
  }
  const deleteAccount = (user: SignedIn, otpCode: string) =>
    api().delete("/users/me", { token: user.token, body: { otp_code: otpCode } })

  const conversationOf = async (party: SignedIn, offerId: string) => {
    const list = await api().get("/conversations/my", { token: party.token })
    return list.body.data.conversations.find((c) => c.offer_id === offerId)!
  }

  const say = async (party: SignedIn, conversationId: string, text: string) =>
    m.expectStatus(
      await api().post(`/conversations/${conversationId}/messages`, {
        token: party.token,
        body: { message_text: text }
      }),
      201,
      "message"
    ).body.data

  it("exports everything the user holds, and nothing of anyone else's", async () => {
    const me = await m.seller("Me")
    const other = await m.seller("Other")
    const third = await m.user("Third")
    // As buyer: a completed deal with messages both ways, rated, and a report about the seller.
    const mine = await m.request(me)
    const theirOffer = await m.offer(other, mine.id)
    const bought = await m.accept(me, theirOffer.id)
    const chat = await conversationOf(me, theirOffer.id)
    const myMessage = await say(me, chat.id, "mine")
    const theirMessage = await say(other, chat.id, "theirs")
    m.expectStatus(await api().put(`/deals/${bought.id}/complete`, { token: me.token }), 200, "complete")
    const given = m.expectStatus(
      await api().post("/ratings", { token: me.token, body: { deal_id: bought.id, rating: 4 } }),
      201,
      "rate"
    ).body.data
    const report = m.expectStatus(
      await api().post("/reports", { token: me.token, body: { reported_user_id: other.userId, reason: "scam" } }),
      201,
      "report"
    ).body.data
    // Reported by someone else: not in the export.
    m.expectStatus(
      await api().post("/reports", { token: other.token, body: { reported_user_id: me.userId, reason: "scam" } }),
      201,
      "report about me"
    )
    // As seller: a deal rated by its buyer, and an alert rule.
    const theirs = await m.request(third)
    const myOffer = await m.offer(me, theirs.id)
    const sold = await m.accept(third, myOffer.id)
    m.expectStatus(await api().put(`/deals/${sold.id}/complete`, { token: third.token }), 200, "complete")
    const received = m.expectStatus(
      await api().post("/ratings", { token: third.token, body: { deal_id: sold.id, rating: 5 } }),
      201,
      "rate me"
    ).body.data
    const rule = m.expectStatus(
      await api().post("/seller-profiles/me/alerts", {
        token: me.token,
        body: { categories: ["phone"], cities: ["Riyadh"] }
      }),
      201,
      "alert rule"
    ).body.data
    const pushToken = `fcm-token-of-me-${crypto.randomUUID()}`
    m.expectStatus(
      await api().post("/device-tokens", { token: me.token, body: { platform: "android", push_token: pushToken } }),
      201,
      "device"
    )

    const response = await api().get("/users/me/export", { token: me.token })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-disposition")).toMatch(/^attachment/)
    const data = response.body.data
    expect(data.exported_at).toMatch(ISO_UTC)
    expect(data.profile).toMatchObject({ id: me.userId, phone_number: me.phone, name: "Me" })
    expect(data.seller_profile).toMatchObject({ id: me.profileId, user_id: me.userId, status: "approved" })
    expect(data.sessions.length).toBeGreaterThan(0)
    expect(data.device_tokens).toHaveLength(1)
    expect(data.device_tokens[0].push_token).not.toBe(pushToken)
    expect(data.device_tokens[0].push_token.startsWith("fcm-")).toBe(true)
    expect(data.requests.map((r) => r.id)).toEqual([mine.id])
    expect(data.offers.map((o) => o.id)).toEqual([myOffer.id])
    expect(data.deals.map((d) => d.id).sort()).toEqual([bought.id, sold.id].sort())
    expect(data.conversations.map((c) => c.id)).toContain(chat.id)
    expect(data.messages.map((msg) => msg.id)).toEqual([myMessage.id])
    expect(data.messages.map((msg) => msg.id)).not.toContain(theirMessage.id)
    expect(data.ratings_given.map((r) => r.id)).toEqual([given.id])
    expect(data.ratings_received.map((r) => r.id)).toEqual([received.id])
    expect(data.reports_made).toEqual([expect.objectContaining({ id: report.id, reported_user_id: other.userId })])
    expect(JSON.stringify(data.reports_made)).not.toContain("notes")
    expect(data.alert_rules.map((r) => r.id)).toEqual([rule.id])
    expect(data.images).toEqual([])
    // The other user's phone number, name and the report about me appear nowhere.
    const text = JSON.stringify(data)
    expect(text).not.toContain(other.phone)
    expect(text).not.toContain(third.phone)
    expect(text).not.toContain("theirs")
  })

  it("limits exports to a few per hour per user", async () => {
    const me = await m.user()
    for (let i = 0; i < 3; i++) m.expectStatus(await api().get("/users/me/export", { token: me.token }), 200, "export")
    expectError(await api().get("/users/me/export", { token: me.token }), 429, "RATE_LIMITED")
    const other = await m.user()
    m.expectStatus(await api().get("/users/me/export", { token: other.token }), 200, "another user's export")
    server().clock.advance(60 * 60 * 1000)
    m.expectStatus(await api().get("/users/me/export", { token: me.token }), 200, "an hour later")
  })

  it("refuses without a code, with a wrong or used code, for an admin, and with an open deal, changing nothing", async () => {
    const { buyer, seller, deal } = await m.deal()
    expectError(await api().raw.delete("/users/me", { token: buyer.token, body: {} }), 400, "VALIDATION_ERROR")
    // No code requested since the sign-in: there is none to use.
    expectError(await deleteAccount(buyer, "123456"), 401, "INVALID_OTP")
    const code = await freshCode(buyer)
    expectError(await deleteAccount(buyer, code === "000000" ? "111111" : "000000"), 401, "INVALID_OTP")
    for (const party of [buyer, seller]) {
      const partyCode = party === buyer ? code : await freshCode(party)
      expectError(await deleteAccount(party, partyCode), 422, "OPEN_DEALS_EXIST")
      m.expectStatus(await api().get("/users/me", { token: party.token }), 200, "still signed in")
    }
    const seen = await api().get(`/deals/${deal.id}`, { token: seller.token })
    expect(seen.body.data.buyer).toEqual({ id: buyer.userId, name: "Buyer", deleted: false })
    // The refusal kept the code unused (its attempt rolled back): it deletes once the deal is done.
    m.expectStatus(await api().put(`/deals/${deal.id}/complete`, { token: buyer.token }), 200, "complete")
    const deleted = m.expectStatus(await deleteAccount(buyer, code), 200, "delete").body.data
    expect(deleted.deleted_at).toMatch(ISO_UTC)

    const admin = await m.admin()
    expectError(await deleteAccount(admin, await freshCode(admin)), 403, "FORBIDDEN")
    m.expectStatus(await api().get("/users/me", { token: admin.token }), 200, "admin still there")
  })

  it("after deletion the other party keeps the deal, offer, messages, rating and conversation, with the user shown deleted", async () => {
    const { buyer, seller, request, offer, deal } = await m.deal()
    const conversation = await conversationOf(buyer, offer.id)
    await say(seller, conversation.id, "hello from the seller")
    await say(buyer, conversation.id, "hello from the buyer")
    m.expectStatus(await api().put(`/deals/${deal.id}/complete`, { token: buyer.token }), 200, "complete")
    m.expectStatus(
      await api().post("/ratings", { token: buyer.token, body: { deal_id: deal.id, rating: 5 } }),
      201,
      "rate"
    )
    // What the seller leaves behind: an avatar, an active request with an offer on it, a pending offer.
    const avatarUrl: string = m.expectStatus(
      await api().post("/users/me/avatar", { token: seller.token, rawBody: avatarForm(png) }),
      200,
      "avatar"
    ).body.data.avatar_url
    expect((await fetch(avatarUrl)).status).toBe(200)
    const otherSeller = await m.seller("Other seller")
    const sellersRequest = await m.request(seller)
    const offerOnSellersRequest = await m.offer(otherSeller, sellersRequest.id)
    const otherBuyer = await m.user("Other buyer")
    const otherRequest = await m.request(otherBuyer)
    await m.offer(seller, otherRequest.id)
    const socket = await connectAs(server().wsUrl, seller.token)
    const publicBefore = await api().get(`/seller-profiles/${seller.profileId}`)
    expect(publicBefore.status).toBe(200)

    m.expectStatus(await deleteAccount(seller, await freshCode(seller)), 200, "delete")

    const gone = { id: seller.userId, name: null, deleted: true }
    // Tokens 401 at once, sockets closed with 4401.
    expectError(await api().get("/users/me", { token: seller.token }), 401, "UNAUTHORIZED")
    expectError(
      await api().post("/auth/refresh", { body: { refresh_token: seller.refreshToken } }),
      401,
      "INVALID_REFRESH_TOKEN"
    )
    expect((await socket.closed).code).toBe(4401)
    // The deal, from the buyer's side.
    const detail = await api().get(`/deals/${deal.id}`, { token: buyer.token })
    expect(detail.status).toBe(200)
    expect(detail.body.data.status).toBe("completed")
    expect(detail.body.data.seller).toMatchObject({ ...gone, rating_avg: 5, rating_count: 1 })
    const list = await api().get("/deals/my", { token: buyer.token })
    expect(list.body.data.deals[0].seller).toMatchObject(gone)
    // The offer on the buyer's request.
    const offers = await api().get(`/requests/${request.id}/offers`, { token: buyer.token })
    expect(offers.body.data.offers.map((o) => [o.id, o.seller.deleted, o.seller.name])).toEqual([
      [offer.id, true, null]
    ])
    // The conversation and its history, over REST and over the WebSocket.
    const summary = await conversationOf(buyer, offer.id)
    expect(summary.other_party).toEqual({ ...gone, avatar_url: null })
    const history = await api().get(`/conversations/${conversation.id}/messages`, { token: buyer.token })
    expect(history.body.data.messages.map((msg) => [msg.sender_id, msg.message_text])).toEqual(
      expect.arrayContaining([
        [seller.userId, "hello from the seller"],
        [buyer.userId, "hello from the buyer"]
      ])
    )
    const buyerSocket = await connectAs(server().wsUrl, buyer.token)
    buyerSocket.send({ type: "subscribe", channel: `conversation.${conversation.id}`, since_seq: 0 })
    await buyerSocket.nextOfType("caught_up")
    expect(buyerSocket.all("message").map((f) => f.data.sender_id)).toContain(seller.userId)
    buyerSocket.close()
    // The seller profile left the public view; the request they posted is closed, its offer rejected; the offer
    // they made elsewhere is withdrawn.
    expectError(await api().get(`/seller-profiles/${seller.profileId}`), 404, "NOT_FOUND")
    const theirRequest = await api().get(`/requests/${sellersRequest.id}`, { token: otherSeller.token })
    expect(theirRequest.body.data).toMatchObject({ status: "closed", buyer: gone })
    const offersOnTheirs = await api().get(`/requests/${sellersRequest.id}/offers`, { token: otherSeller.token })
    expect(offersOnTheirs.body.data.offers.map((o) => [o.id, o.status])).toEqual([
      [offerOnSellersRequest.id, "rejected"]
    ])
    const offersOnOther = await api().get(`/requests/${otherRequest.id}/offers`, { token: otherBuyer.token })
    expect(offersOnOther.body.data.offers).toEqual([])
    // The avatar's file is gone from the store.
    expect((await fetch(avatarUrl)).status).toBe(404)
    // The same number signs up again as a new user.
    const again = await signInOverHttp(server(), api(), seller.phone)
    expect(again.userId).not.toBe(seller.userId)
    expect(again.user).toMatchObject({ phone_number: seller.phone, name: null, avatar_url: null })
    const fresh = await api().get("/deals/my", { token: again.token })
    expect(fresh.body.data.deals).toEqual([])
    // The old user stays deleted in the views: the new one is somebody else.
    expect((await api().get(`/deals/${deal.id}`, { token: buyer.token })).body.data.seller).toMatchObject(gone)
  })

  it("the testkit deletes a user as the API does, and refuses while a deal is open", async () => {
    const { buyer, seller, deal } = await m.deal()
    await expect(server().deleteUser(buyer.phone)).rejects.toThrow(/OPEN_DEALS_EXIST/)
    m.expectStatus(
      await api().put(`/deals/${deal.id}/cancel`, { token: buyer.token, body: { reason: "other" } }),
      200,
      "cancel"
    )
    const { deletedAt } = await server().deleteUser(buyer.phone)
    expect(deletedAt).toBeInstanceOf(Date)
    expectError(await api().get("/users/me", { token: buyer.token }), 401, "UNAUTHORIZED")
    const seen = await api().get(`/deals/${deal.id}`, { token: seller.token })
    expect(seen.body.data).toMatchObject({
      status: "cancelled",
      buyer: { id: buyer.userId, name: null, deleted: true }
    })
  })
})

const avatarForm = (bytes: Uint8Array) => {
  const form = new FormData()
  form.append("avatar", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "me.png")
  return form
}

describe("a deletion racing an accept on postgres", () => {
  const server = useServer("postgres", { settings: marketSettings })
  const m = market(server)

  it("either the deal is made and the deletion refused, or the offer is withdrawn and the accept refused", async () => {
    const outcomes = new Set<string>()
    for (let round = 0; round < 6; round++) {
      const buyer = await m.user("Buyer")
      const seller = await m.seller("Seller")
      const posted = await m.request(buyer)
      const offer = await m.offer(seller, posted.id)
      m.expectStatus(
        await m.api().post("/auth/request-otp", { body: { phone_number: seller.phone } }),
        200,
        "request-otp"
      )
      const code = server().sms.lastCode(seller.phone)!
      const [deleted, accepted] = await Promise.all([
        m.api().delete("/users/me", { token: seller.token, body: { otp_code: code } }),
        m.api().post(`/offers/${offer.id}/accept`, { token: buyer.token })
      ])
      const deals = (await m.api().get("/deals/my", { token: buyer.token })).body.data.deals
      if (accepted.status === 200) {
        expectError(deleted, 422, "OPEN_DEALS_EXIST")
        expect(deals.map((d) => d.seller)).toEqual([expect.objectContaining({ id: seller.userId, deleted: false })])
        m.expectStatus(await m.api().get("/users/me", { token: seller.token }), 200, "seller still there")
        outcomes.add("deal")
      } else {
        expect(deleted.status).toBe(200)
        expect(accepted.status).toBe(422)
        expect(deals).toEqual([])
        const offers = await m.api().get(`/requests/${posted.id}/offers`, { token: buyer.token })
        expect(offers.body.data.offers).toEqual([])
        outcomes.add("deletion")
      }
    }
    expect(outcomes.size).toBeGreaterThan(0)
  })
})
