import type { RequestBody } from "@talab/client-sdk/types"
import { describe, expect, it } from "vitest"
import { conversationOfOffer, market, postMessage, useMarketServer } from "../support/fixtures.js"
import { backends, type SignedIn } from "../support/harness.js"

/** Pushes leave in the background: wait for them (the contract's target is p95 under 5 s; this allows 3). */
const within = { timeout: 3_000, interval: 20 }

describe.each(backends)("push notifications on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)

  const registerDevice = async (
    user: SignedIn,
    platform: RequestBody<"/device-tokens", "post">["platform"],
    pushToken: string
  ) =>
    m.expectStatus(
      await m.api().post("/device-tokens", { token: user.token, body: { platform, push_token: pushToken } }),
      201,
      "register device"
    )
  const pushesTo = (user: SignedIn) => server().pushes.to(user.userId)
  const uniqueToken = (name: string) => `${name}-${backend}-${Math.random().toString(36).slice(2)}`

  it("POST /offers pushes offer_created to every device of the buyer, in the buyer's language, and nothing to the seller", async () => {
    const buyer = await m.user("Huda")
    const seller = await m.seller("Fahad", { business_name: "Malaz Mobiles" })
    m.expectStatus(await m.api().put("/users/me", { token: buyer.token, body: { language: "en" } }), 200, "language")
    const phone = uniqueToken("buyer-phone")
    const tablet = uniqueToken("buyer-tablet")
    await registerDevice(buyer, "android", phone)
    await registerDevice(buyer, "ios", tablet)
    await registerDevice(seller, "android", uniqueToken("seller-phone"))
    const posted = await m.request(buyer)

    const offer = await m.offer(seller, posted.id)

    await expect.poll(() => pushesTo(buyer).length, within).toBe(2)
    const conversationId = await conversationOfOffer(m.api(), buyer, offer.id)
    for (const push of pushesTo(buyer)) {
      expect(push).toMatchObject({
        type: "offer_created",
        title: "New offer on your request",
        body: "Offer from Malaz Mobiles: Apple iPhone 15 for 1,500",
        data: { request_id: posted.id, offer_id: offer.id, conversation_id: conversationId }
      })
    }
    expect(
      pushesTo(buyer)
        .map((push) => push.pushToken)
        .sort()
    ).toEqual([phone, tablet].sort())
    expect(pushesTo(seller)).toEqual([])
  })

  it("accepting an offer pushes offer_accepted to the buyer and the seller, and completing the deal prompts the buyer to rate", async () => {
    const buyer = await m.user("Huda")
    const seller = await m.seller("Fahad")
    await registerDevice(buyer, "ios", uniqueToken("buyer"))
    await registerDevice(seller, "android", uniqueToken("seller"))
    const posted = await m.request(buyer)
    const offer = await m.offer(seller, posted.id)
    await expect.poll(() => pushesTo(buyer).length, within).toBe(1)

    const deal = await m.accept(buyer, offer.id)

    const accepted = { type: "offer_accepted", data: { request_id: posted.id, offer_id: offer.id, deal_id: deal.id } }
    await expect.poll(() => pushesTo(seller), within).toEqual([expect.objectContaining(accepted)])
    await expect
      .poll(() => pushesTo(buyer).filter((push) => push.type === "offer_accepted"), within)
      .toEqual([expect.objectContaining({ ...accepted, title: "تم تأكيد الصفقة" })])
    expect(pushesTo(seller)[0]!.title).toBe("تم قبول عرضك")

    m.expectStatus(await m.api().put(`/deals/${deal.id}/complete`, { token: buyer.token }), 200, "complete")

    await expect
      .poll(() => pushesTo(buyer).filter((push) => push.type === "rating_prompt"), within)
      .toEqual([expect.objectContaining({ data: { deal_id: deal.id } })])
    expect(pushesTo(seller).filter((push) => push.type === "rating_prompt")).toEqual([])
  })

  it("a message to a recipient who is not connected is pushed to them, quoting it", async () => {
    const buyer = await m.user("Huda")
    const seller = await m.seller("Fahad", { business_name: "Malaz Mobiles" })
    await registerDevice(buyer, "android", uniqueToken("buyer"))
    const posted = await m.request(buyer)
    const offer = await m.offer(seller, posted.id)
    const conversationId = await conversationOfOffer(m.api(), seller, offer.id)

    await postMessage(m.api(), seller, conversationId, "Still available, come by after 5")

    await expect
      .poll(() => pushesTo(buyer).filter((push) => push.type === "message"), within)
      .toEqual([
        expect.objectContaining({
          title: "رسالة جديدة من Malaz Mobiles",
          body: "Still available, come by after 5",
          data: { conversation_id: conversationId }
        })
      ])
  })
})
