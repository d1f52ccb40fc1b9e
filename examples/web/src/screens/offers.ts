/*
 * One request and its offers: who the seller is (name, rating, trust figures), the terms, and accept, counter or
 * chat. The list keeps itself up to date:
 * - over the socket: a counter or a revision posts a message to the offer's conversation, so the page subscribes
 *   to every offer's conversation and draws the list again when one arrives;
 * - a brand-new offer arrives as the `offer_created` event on the buyer's own channel, and the list is read again;
 * - what the socket missed while it was down (a reconnect) or the tab was in the background is read again when it
 *   is back.
 */
import type { ApiSchemas, ResponseData } from "@talab/client-sdk"
import { $, button, h } from "../dom.js"
import { clearError, clearFieldErrors, report } from "../errors.js"
import { date, money, number, percent, t, type WordKey } from "../i18n.js"
import { gallery } from "../photos.js"
import { realtime, talab } from "../talab.js"

type Offer = ResponseData<"/requests/{id}/offers", "get">["offers"][number]
type Seller = Offer["seller"]
type Trust = ApiSchemas["SellerTrust"]

/** The conversation of each offer (the seller's offer opened it): offer id → conversation id. */
const conversationsByOffer = async () => {
  const byOffer = new Map<string, string>()
  for await (const conversation of talab.items("/conversations/my", { params: { query: { per_page: 50 } } })) {
    byOffer.set(conversation.offer_id, conversation.id)
  }
  return byOffer
}

export const sellerName = (seller: { name: string | null; deleted: boolean }) =>
  seller.deleted ? t("deletedUser") : (seller.name ?? t("unnamedSeller"))

/** The seller's rating and trust figures; a figure the server has no data for yet (null) is left out, never 0. */
const sellerLine = (seller: Seller) => {
  const trust: Trust = seller.trust
  const figures = [
    trust.rating_avg === null
      ? t("notRated")
      : t("rating", { average: number(trust.rating_avg), count: number(trust.rating_count) }),
    t("completedDeals", { count: number(trust.completed_deals) }),
    trust.completion_rate === null ? null : t("completionRate", { rate: percent(trust.completion_rate) }),
    trust.median_reply_minutes === null
      ? null
      : t("repliesIn", { minutes: number(Math.round(trust.median_reply_minutes)) }),
    t("memberSince", { date: date(trust.member_since) })
  ]
  return h(
    "p",
    { class: "seller", "data-seller-id": seller.id, "data-rating": String(trust.rating_avg ?? "") },
    h("strong", {}, h("bdi", { class: "seller-name" }, sellerName(seller))),
    " · ",
    h("span", { class: "trust" }, figures.filter((figure) => figure !== null).join(" · "))
  )
}

/** Shows a request's offers until the screen is left; returns what to do when it is. */
export const showOffers = async (requestId: string, goTo: (hash: string) => void) => {
  const list = $("offer-list")
  let conversations = new Map<string, string>()
  let shownOfferIds = new Set<string>()
  let left = false
  /** The offers as last drawn: the list is drawn again only when they changed, so a price being typed is kept. */
  let drawn = ""

  const counterForm = (offer: Offer) => {
    const form = h(
      "form",
      { class: "counter", novalidate: "" },
      h("input", { name: "price", type: "number", class: "counter-price", placeholder: t("yourPrice") }),
      h("button", { type: "submit", class: "counter" }, t("counter"))
    )
    form.addEventListener("submit", async (event) => {
      event.preventDefault()
      clearFieldErrors(form)
      clearError()
      try {
        const price = form.querySelector("input")!.value
        const { data } = await talab.POST("/offers/{id}/counter", {
          params: { path: { id: offer.id } },
          body: { price: price === "" ? (undefined as unknown as number) : Number(price) }
        })
        $("status").textContent = t("counterSent", { price: money(data.price) })
        await draw()
      } catch (error) {
        await report(error, form)
      }
    })
    return form
  }

  const offerItem = (offer: Offer) => {
    const conversationId = conversations.get(offer.id)
    const countered = offer.counter === null ? null : t("youProposed", { price: money(offer.counter.price) })
    return h(
      "li",
      { "data-offer-id": offer.id, "data-status": offer.status, "data-revision": String(offer.revision) },
      sellerLine(offer.seller),
      h(
        "p",
        { class: "terms" },
        h("strong", { class: "price", "data-price": String(offer.price) }, money(offer.price)),
        ` (${[t("revision", { revision: number(offer.revision) }), countered].filter(Boolean).join(", ")}) · `,
        offer.availability,
        " · ",
        h("span", { class: "offer-status" }, t(`offer_${offer.status}` satisfies WordKey))
      ),
      gallery(offer.photos, t("offerPhotos")),
      offer.status === "pending" &&
        button(
          t("accept"),
          { class: "accept" },
          () => accept(offer),
          (error) => void report(error)
        ),
      offer.status === "pending" && counterForm(offer),
      conversationId !== undefined && h("a", { class: "chat", href: `#chat/${conversationId}` }, t("chat"))
    )
  }

  const accept = async (offer: Offer) => {
    clearError()
    // Accept the revision shown: if the seller revised it since, the server answers OFFER_CHANGED.
    await talab.POST("/offers/{id}/accept", {
      params: { path: { id: offer.id } },
      body: { expected_revision: offer.revision }
    })
    $("status").textContent = t("dealAccepted")
    const conversationId = conversations.get(offer.id)
    if (conversationId !== undefined) goTo(`#chat/${conversationId}`)
    else await draw()
  }

  const draw = async () => {
    const { data } = await talab.GET("/requests/{id}/offers", { params: { path: { id: requestId } } })
    if (left) return
    // Each new offer opened a conversation: learn it, and listen there for the offer's counters and revisions.
    if (data.offers.some((offer) => !conversations.has(offer.id))) conversations = await conversationsByOffer()
    for (const offer of data.offers) {
      const conversationId = conversations.get(offer.id)
      if (conversationId !== undefined && !shownOfferIds.has(offer.id)) {
        realtime()
          .subscribe(conversationId)
          .catch((error: unknown) => void report(error))
      }
    }
    shownOfferIds = new Set(data.offers.map((offer) => offer.id))
    const offers = JSON.stringify(data.offers)
    if (offers === drawn) return
    drawn = offers
    list.replaceChildren(...data.offers.map(offerItem))
    if (data.offers.length === 0) list.append(h("li", { class: "empty" }, t("noOffers")))
  }

  list.replaceChildren()
  $("request-title").textContent = ""
  $("request-photos-shown").replaceChildren()
  const { data: request } = await talab.GET("/requests/{id}", { params: { path: { id: requestId } } })
  $("request-title").textContent =
    `${[request.product_brand, request.product_model].filter(Boolean).join(" ")} · ${money(request.budget_min)} – ${money(request.budget_max)}`
  $("request-photos-shown").replaceChildren(gallery(request.photos, t("requestPhotos")) ?? "")

  const redraw = () => draw().catch((error: unknown) => void report(error))
  const stopListening = realtime().on("message", (message) => {
    if (message.kind !== "text" && [...conversations.values()].includes(message.conversation_id)) void redraw()
  })
  const stopNewOffers = realtime().on("event", ({ event, data }) => {
    if (event === "offer_created" && data.request_id === requestId) void redraw()
  })
  const stopReconnects = realtime().on("state", (state) => {
    if (state === "open") void redraw()
  })
  const redrawIfVisible = () => {
    if (!document.hidden) void redraw()
  }
  document.addEventListener("visibilitychange", redrawIfVisible)
  await redraw()

  return () => {
    left = true
    stopListening()
    stopNewOffers()
    stopReconnects()
    document.removeEventListener("visibilitychange", redrawIfVisible)
    for (const conversationId of conversations.values()) void realtime().unsubscribe(conversationId)
  }
}
