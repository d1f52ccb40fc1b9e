import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { extname, join } from "node:path"
import { createTalabClient, isTalabApiError, memoryTokenStore, type TalabClient } from "@talab/client-sdk"
import { newPhoneNumber, startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../../packages/http-server/test/support/migrated-databases.js"
import { buildPage } from "../scripts/build.js"
import { fillIn, type Language, ltr, type WordKey, words } from "../src/words.js"

/*
 * The example app in headless Chromium (Debian's, /usr/bin/chromium, or $CHROMIUM) against testkit servers, once
 * in English and once in Arabic (right to left). A buyer signs in, sees the API's field errors under the fields,
 * posts a request, reloads and is still there, sees a rated seller's offer arrive and change by itself, counters,
 * is refused an accept of a revision they did not see, accepts, and chats: sender, time and read state both ways,
 * and a blank message refused in words. Then the three ways a call gets no answer: a CORS refusal, a server out
 * of reach, no network. The seller and a past buyer are played by the test through the SDK. Assertions read what
 * the page shows; screenshots land in examples/web/screenshots/ (git-ignored) for a person to look at.
 */

const ADMIN = "+966500000001"
const SELLER_NAME = "Rawdah Mobiles"
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium"
const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" }
const screenshots = join(import.meta.dirname, "..", "screenshots")
/** Generous: the page reads new offers every 5 s, and this machine may be loaded. */
const LIVE = { timeout: 30_000 }
/** A valid 1×1 PNG: a photo the server takes. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==",
  "base64"
)
const photoFile = (name: string) => ({ name, mimeType: "image/png", buffer: PNG })
/** Whether an <img> loaded its picture: the signed URL works with no token. */
const loaded = (image: Locator) =>
  image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth > 0)

let server: TestServer
/** A server that allows one other browser origin only: this page's calls are refused by CORS. */
let corsServer: TestServer
let site: Server
let siteUrl: string
let closedPortUrl: string
let browser: Browser
let seller: TalabClient
const folder = mkdtempSync(join(tmpdir(), "talab-web-example-"))

/**
 * An SDK client signed in by the testkit, which counts no rate limit: the page's own sign-ins go through the
 * 10 per minute the server allows one network on `/auth/*`, and every client here is 127.0.0.1.
 */
const signIn = async (phone: string, language: Language = "en") => {
  const { tokens } = await server.signIn(phone)
  return createTalabClient({
    baseUrl: server.baseUrl,
    language,
    tokenStore: memoryTokenStore({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token })
  })
}

/** An approved seller with a name, one completed deal and one rating of 4, so the page has trust figures to show. */
const ratedSeller = async () => {
  const talab = await signIn(newPhoneNumber())
  const admin = await signIn(ADMIN)
  await talab.PUT("/users/me", { body: { name: SELLER_NAME } })
  const { data: profile } = await talab.POST("/seller-profiles", {
    body: { business_name: SELLER_NAME, location_district: "Al Rawdah" }
  })
  await admin.PUT("/admin/seller-profiles/{id}/approve", { params: { path: { id: profile.id } } })
  const pastBuyer = await signIn(newPhoneNumber())
  const { data: request } = await pastBuyer.POST("/requests", {
    body: {
      category: "phone",
      product_brand: "Samsung",
      budget_min: 900,
      budget_max: 1200,
      location_district: "Al Olaya"
    }
  })
  const { data: offer } = await talab.POST("/offers", {
    body: { request_id: request.id, price: 1000, availability: "Today" }
  })
  const { data: accepted } = await pastBuyer.POST("/offers/{id}/accept", { params: { path: { id: offer.id } } })
  await pastBuyer.PUT("/deals/{id}/complete", { params: { path: { id: accepted.deal.id } } })
  await pastBuyer.POST("/ratings", { body: { deal_id: accepted.deal.id, rating: 4, review_text: "Fine" } })
  return talab
}

beforeAll(async () => {
  ;[server, corsServer] = await Promise.all([
    startTestServer(await withMigratedDump<TestServerOptions>({ settings: { adminPhoneNumbers: [ADMIN] } })),
    startTestServer(await withMigratedDump<TestServerOptions>({ settings: { corsOrigins: ["https://app.example"] } })),
    buildPage(folder)
  ])
  site = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname.replace(/^\/$/, "/index.html")
    try {
      const body = readFileSync(join(folder, path.replace(/\.\./g, "")))
      response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body)
    } catch {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  // A port that was just free and is closed again: connections to it are refused.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
  closedPortUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
  await new Promise((resolve) => closed.close(resolve))
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
  seller = await ratedSeller()
  // This run's screenshots only.
  rmSync(screenshots, { recursive: true, force: true })
  mkdirSync(screenshots, { recursive: true })
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => site?.close(resolve))
  await Promise.all([server?.close(), corsServer?.close()])
  rmSync(folder, { recursive: true, force: true })
}, 60_000)

/** A fresh browser profile (its own localStorage) whose browser speaks `language`, so the page starts in it. */
const newContext = (language: Language) =>
  browser.newContext({ locale: language === "ar" ? "ar-SA" : "en-US", viewport: { width: 800, height: 1000 } })
const pageUrl = (api: string) => `${siteUrl}/?api=${encodeURIComponent(api)}`
const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim()

describe.each(["en", "ar"] as const)("the web example in %s", (language) => {
  const say = (key: WordKey, params: Record<string, string | number> = {}) => fillIn(words[key][language], params)
  const locale = language === "ar" ? "ar" : "en-GB"
  const numeral = (value: number) => new Intl.NumberFormat(locale).format(value)
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(screenshots, `${language}-${name}.png`), fullPage: true })

  let context: BrowserContext
  let page: Page
  const buyerPhone = newPhoneNumber()
  let requestId: string
  let offerId: string
  let conversationId: string

  /** The page's WebSocket frames, both ways, over every reload. */
  const framesSent: Array<Record<string, any>> = []
  const framesReceived: Array<Record<string, any>> = []

  beforeAll(async () => {
    context = await newContext(language)
    page = await context.newPage()
    page.on("websocket", (socket) => {
      socket.on("framesent", (frame) => framesSent.push(JSON.parse(String(frame.payload))))
      socket.on("framereceived", (frame) => framesReceived.push(JSON.parse(String(frame.payload))))
    })
  })
  afterAll(async () => {
    await context?.close()
  })

  it("speaks the language, right to left in Arabic, and signs in by SMS code", async () => {
    await page.goto(pageUrl(server.baseUrl))
    expect(await page.getAttribute("html", "lang")).toBe(language)
    expect(await page.getAttribute("html", "dir")).toBe(language === "ar" ? "rtl" : "ltr")
    expect(await text(page, "#phone-form button")).toBe(say("sendCode"))

    await page.fill("#phone", buyerPhone)
    await page.click("#phone-form button")
    await page.locator("#code").waitFor()
    expect(await text(page, "#status")).toBe(say("codeSent", { phone: ltr(buyerPhone) }))
    await page.fill("#code", server.sms.lastCode(buyerPhone)!)
    await page.click("#code-form button")
    await page.locator("#request-form").waitFor()
    expect(await text(page, "#status")).toBe(say("signedInAs", { phone: ltr(buyerPhone) }))
    // The list of the buyer's requests is fetched once signed in: empty until it arrives.
    await expect.poll(() => text(page, "#my-requests"), LIVE).toBe(say("noRequests"))
  }, 60_000)

  it("shows the API's field errors under their fields, in the page's language", async () => {
    await page.fill("#budget-min", "0")
    await page.fill("#district", "   ")
    await page.click("#request-form button")
    const budgetError = page.locator('.field-error[data-field="budget_min"]')
    await budgetError.waitFor()
    // The same words the API gives an SDK client of that language for the same fields.
    const expected = await (await signIn(newPhoneNumber(), language))
      .POST("/requests", {
        body: { category: "phone", budget_min: 0, budget_max: 3500, location_district: "   " }
      })
      .then(
        () => expect.fail("the API accepted a budget of 0"),
        (error: unknown) => (isTalabApiError(error, "VALIDATION_ERROR") ? error : expect.fail(String(error)))
      )
    expect(await budgetError.textContent()).toBe(expected.details!.budget_min!.join(" "))
    expect(await text(page, '.field-error[data-field="location_district"]')).toBe(
      expected.details!.location_district!.join(" ")
    )
    expect(await page.getAttribute("#budget-min", "aria-invalid")).toBe("true")
    expect(await text(page, "#error")).toBe(expected.message)
    await shot(page, "1-field-errors")
    const { data: mine } = await (await signIn(buyerPhone)).GET("/requests/my")
    expect(mine.requests).toEqual([])
  }, 60_000)

  it("posts the request with its photos, and a reload keeps the session and the screen", async () => {
    await page.fill("#budget-min", "2500")
    await page.fill("#district", "Al Rawdah")
    await page.setInputFiles("#request-photos", [photoFile("box.png"), photoFile("receipt.png")])
    await page.click("#request-form button")
    await page.waitForURL(/#request\//)
    requestId = page.url().split("#request/")[1]!
    expect(await text(page, "#status")).toBe(say("requestPosted", { title: "Apple iPhone 15 Pro" }))
    await expect.poll(() => text(page, "#offer-list"), LIVE).toBe(say("noOffers"))
    expect(await page.locator(".field-error").count()).toBe(0)
    const { data: posted } = await seller.GET("/requests/{id}", { params: { path: { id: requestId } } })
    expect(posted.photos).toHaveLength(2)
    const shown = page.locator("#request-photos-shown img")
    await expect.poll(() => shown.count(), LIVE).toBe(2)
    expect(await shown.evaluateAll((images) => images.map((image) => image.dataset.photoId))).toEqual(
      posted.photos.map((photo) => photo.id)
    )
    await expect.poll(() => loaded(shown.first()), LIVE).toBe(true)

    await page.reload()
    await expect.poll(() => text(page, "#status"), LIVE).toBe(say("signedInAs", { phone: ltr(buyerPhone) }))
    expect(page.url()).toContain(`#request/${requestId}`)
    await expect.poll(() => text(page, "#request-title"), LIVE).toContain("Apple iPhone 15 Pro")
    expect(await page.isVisible("#sign-in")).toBe(false)
    expect(await page.evaluate(() => Object.keys(JSON.parse(localStorage.getItem("talab.session")!)))).toEqual([
      "accessToken",
      "refreshToken"
    ])
  }, 60_000)

  it("shows a new offer by itself, live over the socket, with the seller's name, rating and trust figures", async () => {
    await expect.poll(() => text(page, "#connection"), LIVE).toBe(say("live"))
    const photo = await seller.uploadImage(PNG, "the-phone.png")
    const { data: offer } = await seller.POST("/offers", {
      body: { request_id: requestId, price: 3200, availability: "Today after 6 pm", photo_ids: [photo.id] }
    })
    offerId = offer.id
    const item = page.locator(`#offer-list li[data-offer-id="${offerId}"]`)
    await item.waitFor(LIVE)
    const offerPhoto = item.locator(`.photos img[data-photo-id="${photo.id}"]`)
    await expect.poll(() => loaded(offerPhoto), LIVE).toBe(true)
    expect(
      framesReceived.some(
        (frame) => frame.type === "event" && frame.event === "offer_created" && frame.data.offer_id === offerId
      )
    ).toBe(true)
    expect(await item.locator(".seller-name").textContent()).toBe(SELLER_NAME)
    expect(await item.locator(".seller").getAttribute("data-rating")).toBe("4")
    const trust = await item.locator(".trust").textContent()
    // The figures the API gives (the seller's other deals, accepted in the other language's run, count too).
    const { data: offers } = await seller.GET("/requests/{id}/offers", { params: { path: { id: requestId } } })
    const figures = offers.offers[0]!.seller.trust
    expect(figures).toMatchObject({ rating_avg: 4, rating_count: 1, completed_deals: 1 })
    expect(trust).toContain(say("rating", { average: numeral(4), count: numeral(1) }))
    expect(trust).toContain(say("completedDeals", { count: numeral(1) }))
    const rate = new Intl.NumberFormat(locale, { style: "percent" }).format(figures.completion_rate!)
    expect(trust).toContain(say("completionRate", { rate }))
    expect(await item.locator(".price").getAttribute("data-price")).toBe("3200")
    expect(await item.locator(".offer-status").textContent()).toBe(say("offer_pending"))
    await shot(page, "2-offer")
  }, 60_000)

  it("redraws an offer the seller revises, live over the socket", async () => {
    await expect.poll(() => text(page, "#connection"), LIVE).toBe(say("live"))
    // The page listens on the offer's conversation, where a revision posts a message.
    const { data: conversations } = await seller.GET("/conversations/my")
    const channel = `conversation.${conversations.conversations.find((c) => c.offer_id === offerId)!.id}`
    await expect
      .poll(() => framesSent.some((frame) => frame.type === "subscribe" && frame.channel === channel), LIVE)
      .toBe(true)
    await seller.PATCH("/offers/{id}", { params: { path: { id: offerId } }, body: { price: 3100 } })
    await expect
      .poll(() => framesReceived.some((frame) => frame.type === "message" && frame.data.kind === "revision"), LIVE)
      .toBe(true)
    const item = page.locator(`#offer-list li[data-offer-id="${offerId}"]`)
    await expect.poll(() => item.getAttribute("data-revision"), LIVE).toBe("2")
    expect(await item.locator(".price").getAttribute("data-price")).toBe("3100")
  }, 60_000)

  it("counters, and refuses to accept a revision the buyer has not seen", async () => {
    const item = page.locator(`#offer-list li[data-offer-id="${offerId}"]`)
    await item.locator(".counter-price").fill("3000")
    // The list is read again when the tab comes back to the foreground: two reads come and go, and the price
    // being typed stays.
    const offersRead = async () => {
      const read = page.waitForResponse((response) => response.url().endsWith(`/requests/${requestId}/offers`), LIVE)
      await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
      await read
    }
    await offersRead()
    await offersRead()
    expect(await item.locator(".counter-price").inputValue()).toBe("3000")
    await item.locator("button.counter").click()
    await expect.poll(() => text(page, "#status"), LIVE).toContain(say("counterSent", { price: "" }).trim())
    await expect
      .poll(() => item.locator(".terms").textContent(), LIVE)
      .toContain(say("youProposed", { price: "" }).trim())

    // The seller revises while the buyer's accept is on its way: it carries the revision the page showed.
    await page.route("**/offers/*/accept", async (route) => {
      await seller.PATCH("/offers/{id}", { params: { path: { id: offerId } }, body: { price: 3150 } })
      await route.continue()
    })
    await page.locator(`#offer-list li[data-offer-id="${offerId}"] button.accept`).click()
    await expect
      .poll(() => text(page, "#error"), LIVE)
      .toContain(
        language === "ar" ? "عدّل البائع العرض بعد أن اطلعت عليه" : "The seller revised the offer after you saw it"
      )
    await page.unroute("**/offers/*/accept")
    const { data: offers } = await seller.GET("/requests/{id}/offers", { params: { path: { id: requestId } } })
    expect(offers.offers[0]!.status).toBe("pending")
    await expect.poll(() => item.getAttribute("data-revision"), LIVE).toBe("3")
  }, 60_000)

  it("accepts the revision shown and opens the chat: sender, time and kind of each message", async () => {
    await page.locator(`#offer-list li[data-offer-id="${offerId}"] button.accept`).click()
    await page.waitForURL(/#chat\//)
    conversationId = page.url().split("#chat/")[1]!
    expect(await text(page, "#status")).toBe(say("dealAccepted"))
    await expect.poll(() => text(page, "#chat-title"), LIVE).toBe(say("chatWith", { name: SELLER_NAME }))
    const { data: deals } = await seller.GET("/deals/my")
    expect(deals.deals.find((deal) => deal.offer.id === offerId)?.offer).toEqual({
      id: offerId,
      price: 3150,
      revision: 3
    })

    // The seller's first revision, the buyer's counter, the seller's second revision: in the order they were made.
    const messages = page.locator("#messages li")
    await expect.poll(() => messages.count(), LIVE).toBe(3)
    expect(await messages.evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.kind))).toEqual([
      "revision",
      "counter",
      "revision"
    ])
    expect(await messages.locator(".sender").allTextContents()).toEqual([SELLER_NAME, say("you"), SELLER_NAME])
    for (const time of await messages.locator("time").all()) {
      expect(Number.isNaN(Date.parse((await time.getAttribute("datetime")) ?? ""))).toBe(false)
      expect(((await time.textContent()) ?? "").length).toBeGreaterThan(0)
    }
    expect(await messages.nth(1).locator(".text").textContent()).toContain(say("message_counter"))
    expect(await messages.first().locator(".text").textContent()).toContain(say("message_revision"))
  }, 60_000)

  it("shows the seller's message live and marks it read; shows when the seller has read the buyer's", async () => {
    const { data: sent } = await seller.POST("/conversations/{id}/messages", {
      params: { path: { id: conversationId } },
      body: { message_text: "Hello, it is sealed." }
    })
    const theirs = page.locator(`#messages li[data-message-id="${sent.id}"]`)
    await theirs.waitFor(LIVE)
    expect(await theirs.locator(".sender").textContent()).toBe(SELLER_NAME)
    expect(await theirs.locator(".text").textContent()).toBe("Hello, it is sealed.")
    expect(await theirs.locator("time").getAttribute("datetime")).toBe(sent.created_at)
    // The page told the server the buyer read it: the seller's history says so.
    await expect
      .poll(async () => {
        const { data } = await seller.GET("/conversations/{id}/messages", { params: { path: { id: conversationId } } })
        return data.messages.find((message) => message.id === sent.id)?.read_at ?? null
      }, LIVE)
      .not.toBeNull()

    await page.fill("#message", "Great, see you at 6")
    await page.click("#message-form button")
    const mine = page.locator("#messages li.mine").last()
    await expect.poll(() => mine.locator(".text").textContent(), LIVE).toBe("Great, see you at 6")
    expect(await mine.locator(".sender").textContent()).toBe(say("you"))
    expect(await mine.locator(".read-state").textContent()).toBe(say("sent"))
    expect(await mine.locator(".read-state").getAttribute("data-read")).toBe("false")
    await shot(page, "3-chat-sent")

    const seq = Number(await mine.getAttribute("data-seq"))
    await seller.PUT("/conversations/{id}/read", { params: { path: { id: conversationId } }, body: { up_to_seq: seq } })
    await expect.poll(() => mine.locator(".read-state").getAttribute("data-read"), LIVE).toBe("true")
    expect(await mine.locator(".read-state").textContent()).toBe(say("read"))
    expect(await text(page, "#error")).toBe("")
    await shot(page, "4-chat-read")
  }, 60_000)

  it("refuses a blank message in words, under the field, and sends nothing", async () => {
    const count = await page.locator("#messages > li").count()
    await page.fill("#message", "   \t ")
    await page.click("#message-form button")
    const note = page.locator('.field-error[data-field="message_text"]')
    await note.waitFor()
    expect(await note.textContent()).toBe(say("emptyMessage"))
    expect(await page.getAttribute("#message", "aria-invalid")).toBe("true")
    expect(await page.locator("body").textContent()).not.toContain("RealtimeError")
    expect(await text(page, "#error")).toBe("")
    const { data } = await seller.GET("/conversations/{id}/messages", { params: { path: { id: conversationId } } })
    expect(data.messages).toHaveLength(count)
    expect(await page.locator("#messages > li").count()).toBe(count)
    await shot(page, "5-blank-message")
  }, 60_000)

  it("sends photos alone in the chat and shows them, as the seller receives them", async () => {
    await page.fill("#message", "")
    await page.setInputFiles("#attachments", [photoFile("scratch.png")])
    await page.click("#message-form button")
    const mine = page.locator("#messages li.mine").last()
    await expect.poll(() => mine.locator(".photos img").count(), LIVE).toBe(1)
    await expect.poll(() => loaded(mine.locator(".photos img")), LIVE).toBe(true)
    expect(await mine.locator(".text").textContent()).toBe("")
    const messageId = await mine.getAttribute("data-message-id")
    const { data } = await seller.GET("/conversations/{id}/messages", { params: { path: { id: conversationId } } })
    const stored = data.messages.find((message) => message.id === messageId)
    expect(stored?.attachments).toHaveLength(1)
    expect(stored?.message_text).toBe("")
    expect(await page.locator(".field-error").count()).toBe(0)
    await seller.PUT("/conversations/{id}/read", {
      params: { path: { id: conversationId } },
      body: { up_to_seq: stored!.seq }
    })
    await expect.poll(() => mine.locator(".read-state").getAttribute("data-read"), LIVE).toBe("true")
    await shot(page, "6-chat-photo")
  }, 60_000)

  it("comes back to the chat after a reload, still signed in", async () => {
    await page.reload()
    await expect.poll(() => page.locator("#messages > li").count(), LIVE).toBe(6)
    expect(await text(page, "#status")).toBe(say("signedInAs", { phone: ltr(buyerPhone) }))
    expect(await page.locator("#messages li.mine .read-state").last().getAttribute("data-read")).toBe("true")
  }, 60_000)

  it("switches language and stays signed in", async () => {
    const other: Language = language === "ar" ? "en" : "ar"
    await page.click("#language")
    await expect.poll(() => page.getAttribute("html", "lang"), LIVE).toBe(other)
    expect(await page.getAttribute("html", "dir")).toBe(other === "ar" ? "rtl" : "ltr")
    await expect
      .poll(() => text(page, "#status"), LIVE)
      .toBe(fillIn(words.signedInAs[other], { phone: ltr(buyerPhone) }))
  }, 60_000)
})

describe.each(["en", "ar"] as const)("a call that gets no answer, in %s", (language) => {
  const say = (key: WordKey, params: Record<string, string | number> = {}) => fillIn(words[key][language], params)

  /** Opens the page on `api` and asks for a code: the first call the page makes. */
  const askForCode = async (name: string, api: string, before?: (context: BrowserContext) => Promise<void>) => {
    const context = await newContext(language)
    try {
      const page = await context.newPage()
      await page.goto(pageUrl(api))
      await page.fill("#phone", newPhoneNumber())
      await before?.(context)
      await page.click("#phone-form button")
      await expect.poll(() => text(page, "#error"), LIVE).not.toBe("")
      await page.screenshot({ path: join(screenshots, `${language}-no-answer-${name}.png`) })
      return text(page, "#error")
    } finally {
      await context.close()
    }
  }

  it("says CORS refused this page's origin, naming it and the server", async () => {
    expect(await askForCode("cors", corsServer.baseUrl)).toBe(
      say("corsRefused", { api: ltr(corsServer.baseUrl), origin: ltr(siteUrl) })
    )
  }, 60_000)

  it("says the server could not be reached when nothing listens there", async () => {
    expect(await askForCode("closed-port", closedPortUrl)).toBe(say("unreachable", { api: ltr(closedPortUrl) }))
  }, 60_000)

  it("says the device is offline when the browser has no network", async () => {
    expect(await askForCode("offline", server.baseUrl, (context) => context.setOffline(true))).toBe(
      say("youAreOffline")
    )
  }, 60_000)
})
