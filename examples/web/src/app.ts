/*
 * The whole example: the SDK is the only dependency. The API's address comes from `?api=` (default: this
 * page's origin), so the page can be served from anywhere the server's CORS_ORIGINS allows.
 */
import { type ChatMessage, createTalabClient, isTalabApiError, type RealtimeClient } from "@talab/client-sdk"

const baseUrl = new URLSearchParams(location.search).get("api") ?? location.origin
const talab = createTalabClient({ baseUrl, language: "en" })

const $ = <E extends HTMLElement>(id: string) => document.getElementById(id) as E
const value = (id: string) => $<HTMLInputElement>(id).value.trim()
const show = (id: string, visible = true) => {
  $(id).hidden = !visible
}
const status = (text: string) => {
  $("status").textContent = text
}

let phone = ""
let requestId = ""
let live: RealtimeClient | undefined
let conversationId = ""

/** Runs a handler, showing a failure's localized message instead of throwing it away. */
const guarded =
  <A extends Array<unknown>>(handler: (...args: A) => Promise<void>) =>
  async (...args: A) => {
    $("error").textContent = ""
    try {
      await handler(...args)
    } catch (error) {
      $("error").textContent = isTalabApiError(error) ? `${error.code}: ${error.message}` : String(error)
    }
  }

const onSubmit = (id: string, handler: () => Promise<void>) =>
  $<HTMLFormElement>(id).addEventListener(
    "submit",
    guarded(async (event: Event) => {
      event.preventDefault()
      await handler()
    })
  )

onSubmit("phone-form", async () => {
  phone = value("phone")
  await talab.auth.requestOtp(phone)
  show("code-form")
  status(`Code sent to ${phone}`)
})

onSubmit("code-form", async () => {
  const { user } = await talab.auth.signIn({ phoneNumber: phone, otpCode: value("code") })
  status(`Signed in as ${user.phone_number}`)
  show("sign-in", false)
  show("request")
  show("search")
})

/** GET /requests with what the search box says: the words in Arabic or Latin letters, a price, an order. */
onSubmit("search-form", async () => {
  const q = value("q")
  const price = value("fits-price")
  const sort = $<HTMLSelectElement>("sort").value as "newest" | "budget_desc" | "budget_asc" | ""
  const { data } = await talab.GET("/requests", {
    params: {
      query: {
        ...(q === "" ? {} : { q }),
        ...(price === "" ? {} : { fits_price: Number(price) }),
        ...(sort === "" ? {} : { sort })
      }
    }
  })
  $("search-total").textContent = `Found: ${data.pagination.total}`
  $("search-results").replaceChildren(
    ...data.requests.map((request) => {
      const item = document.createElement("li")
      item.dataset.requestId = request.id
      item.textContent = `${request.product_brand ?? ""} ${request.product_model ?? ""}, ${request.budget_min}-${request.budget_max} SAR, ${request.location_district}`
      return item
    })
  )
})

onSubmit("request-form", async () => {
  const { data } = await talab.POST("/requests", {
    body: {
      category: "phone",
      product_brand: value("brand"),
      product_model: value("model"),
      budget_min: Number(value("budget-min")),
      budget_max: Number(value("budget-max")),
      location_district: value("district")
    }
  })
  requestId = data.id
  status(`Request posted: ${data.product_brand} ${data.product_model}`)
  show("request", false)
  show("offers")
})

/** A button of an offer's line. */
const button = (label: string, className: string, onClick: () => Promise<void>) => {
  const element = document.createElement("button")
  element.type = "button"
  element.className = className
  element.textContent = label
  element.addEventListener("click", guarded(onClick))
  return element
}

const renderOffers = async () => {
  const { data } = await talab.GET("/requests/{id}/offers", { params: { path: { id: requestId } } })
  const list = $("offer-list")
  list.replaceChildren(
    ...data.offers.map((offer) => {
      const item = document.createElement("li")
      item.dataset.offerId = offer.id
      const countered = offer.counter === null ? "" : `, you proposed ${offer.counter.price} SAR`
      item.textContent = `${offer.price} SAR (rev ${offer.revision}${countered}), ${offer.availability} (${offer.status}) `
      if (offer.status === "pending") {
        // Accept the revision shown: if the seller revised it since, the server answers OFFER_CHANGED.
        item.append(button("Accept", "accept", () => acceptOffer(offer.id, offer.revision)))
        const price = document.createElement("input")
        price.type = "number"
        price.className = "counter-price"
        price.placeholder = "Your price"
        item.append(
          price,
          button("Counter", "counter", () => counterOffer(offer.id, Number(price.value)))
        )
      }
      return item
    })
  )
  if (data.offers.length === 0) list.textContent = "No offers yet"
}

const counterOffer = async (offerId: string, price: number) => {
  const { data } = await talab.POST("/offers/{id}/counter", { params: { path: { id: offerId } }, body: { price } })
  status(`Counter sent: ${data.price} SAR`)
  await renderOffers()
}

$("refresh-offers").addEventListener("click", guarded(renderOffers))

const appendMessage = (message: ChatMessage) => {
  const item = document.createElement("li")
  item.dataset.messageId = message.id
  // Counters and revisions are posted to the chat too; mark them apart from what was written.
  item.textContent = message.kind === "text" ? message.message_text : `[${message.kind}] ${message.message_text}`
  $("messages").append(item)
}

const acceptOffer = async (offerId: string, revision: number) => {
  const { data } = await talab.POST("/offers/{id}/accept", {
    params: { path: { id: offerId } },
    body: { expected_revision: revision }
  })
  status(`Deal ${data.deal.status}`)
  await renderOffers()
  // The offer's conversation, opened with the offer: the buyer and the seller chat there.
  const { data: mine } = await talab.GET("/conversations/my")
  const conversation = mine.conversations.find((c) => c.offer_id === offerId)
  if (conversation === undefined) throw new Error("The offer has no conversation")
  conversationId = conversation.id
  live = talab.realtime()
  live.on("message", appendMessage)
  await live.connect()
  const { data: history } = await talab.GET("/conversations/{id}/messages", {
    params: { path: { id: conversationId } }
  })
  for (const message of [...history.messages].reverse()) appendMessage({ ...message, conversation_id: conversationId })
  const newest = history.messages[0]
  await live.subscribe(conversationId, newest ? { after: newest } : {})
  show("chat")
}

onSubmit("message-form", async () => {
  if (!live) return
  await live.send(conversationId, value("message"))
  $<HTMLInputElement>("message").value = ""
})

document.addEventListener("visibilitychange", () => {
  if (document.hidden) live?.background()
  else live?.foreground()
})
