import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { extname, join } from "node:path"
import { createTalabClient } from "@talab/client-sdk"
import { newPhoneNumber, startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../../packages/http-server/test/support/migrated-databases.js"
import { buildPage } from "../scripts/build.js"

/*
 * The sample page in headless Chromium (Debian's, /usr/bin/chromium, or $CHROMIUM) against a testkit server:
 * a buyer signs in by OTP, posts a request, sees a seller's offer, counters it, accepts the revision it saw (a
 * revision made meanwhile is refused, OFFER_CHANGED) and chats live. The seller is
 * driven from the test through the SDK. Assertions read what the page shows.
 */

const ADMIN = "+966500000001"
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium"
const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" }

let server: TestServer
let site: Server
let siteUrl: string
let browser: Browser
let page: Page
const folder = mkdtempSync(join(tmpdir(), "talab-web-example-"))

beforeAll(async () => {
  ;[server] = await Promise.all([
    startTestServer(await withMigratedDump<TestServerOptions>({ settings: { adminPhoneNumbers: [ADMIN] } })),
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
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
  page = await browser.newPage()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => site?.close(resolve))
  await server?.close()
  rmSync(folder, { recursive: true, force: true })
}, 60_000)

/** A seller with an approved profile, signed in through the SDK. */
const approvedSeller = async () => {
  const signIn = async (phone: string) => {
    const talab = createTalabClient({ baseUrl: server.baseUrl, language: "en" })
    await talab.auth.requestOtp(phone)
    await talab.auth.signIn({ phoneNumber: phone, otpCode: server.sms.lastCode(phone)! })
    return talab
  }
  const seller = await signIn(newPhoneNumber())
  const admin = await signIn(ADMIN)
  const { data: profile } = await seller.POST("/seller-profiles", {
    body: { business_name: "Rawdah Mobiles", location_district: "Al Rawdah" }
  })
  await admin.PUT("/admin/seller-profiles/{id}/approve", { params: { path: { id: profile.id } } })
  return seller
}

describe("the web example", () => {
  it("signs in by OTP, posts a request, bargains, accepts the revision seen and chats live", async () => {
    const text = async (selector: string) => (await page.locator(selector).textContent()) ?? ""
    const buyerPhone = newPhoneNumber()
    await page.goto(`${siteUrl}/?api=${encodeURIComponent(server.baseUrl)}`)

    await page.fill("#phone", buyerPhone)
    await page.click("#phone-form button")
    await page.locator("#code-form").waitFor()
    expect(await text("#status")).toBe(`Code sent to ${buyerPhone}`)
    await page.fill("#code", server.sms.lastCode(buyerPhone)!)
    await page.click("#code-form button")
    await page.locator("#request-form").waitFor()
    expect(await text("#status")).toBe(`Signed in as ${buyerPhone}`)

    await page.click("#request-form button")
    await page.locator("#refresh-offers").waitFor()
    expect(await text("#status")).toBe("Request posted: Apple iPhone 15 Pro")

    // The search box finds it written in Arabic letters and digits.
    await page.fill("#q", "آيفون ١٥ برو")
    await page.click("#search-form button")
    await expect.poll(() => text("#search-results")).toContain("Apple iPhone 15 Pro")
    expect(await text("#search-total")).toBe("Found: 1")

    const seller = await approvedSeller()
    const { data: requests } = await seller.GET("/requests")
    const { data: offer } = await seller.POST("/offers", {
      body: { request_id: requests.requests[0]!.id, price: 3200, availability: "Today after 6 pm" }
    })
    await page.click("#refresh-offers")
    await expect.poll(() => text("#offer-list")).toContain("3200 SAR (rev 1), Today after 6 pm (pending)")

    await page.fill("#offer-list .counter-price", "3000")
    await page.click("#offer-list button.counter")
    await expect.poll(() => text("#offer-list")).toContain("3200 SAR (rev 1, you proposed 3000 SAR)")
    expect(await text("#status")).toBe("Counter sent: 3000 SAR")

    const revise = (price: number) =>
      seller.PATCH("/offers/{id}", { params: { path: { id: offer.id } }, body: { price } })
    await revise(3100)
    await page.click("#refresh-offers")
    await expect.poll(() => text("#offer-list")).toContain("3100 SAR (rev 2), Today after 6 pm (pending)")
    // Revised again while the page shows revision 2: accepting what the page shows is refused.
    await revise(3150)
    await page.click("#offer-list button.accept")
    await expect.poll(() => text("#error")).toContain("OFFER_CHANGED")
    expect(await text("#offer-list")).toContain("(pending)")

    await page.click("#refresh-offers")
    await expect.poll(() => text("#offer-list")).toContain("3150 SAR (rev 3)")
    await page.click("#offer-list button.accept")
    await page.locator("#message-form").waitFor()
    expect(await text("#status")).toBe("Deal accepted")
    expect(await text("#offer-list")).toContain("(accepted)")
    const { data: deals } = await seller.GET("/deals/my")
    expect(deals.deals[0]!.offer).toEqual({ id: offer.id, price: 3150, revision: 3 })
    // The counter and the two revisions are in the chat, before anything written.
    await expect.poll(() => page.locator("#messages li").count(), { timeout: 10_000 }).toBe(3)
    expect(await text("#messages")).toContain("[counter]")

    const { data: conversations } = await seller.GET("/conversations/my")
    const conversationId = conversations.conversations[0]!.id
    await seller.POST("/conversations/{id}/messages", {
      params: { path: { id: conversationId } },
      body: { message_text: "Hello, it is sealed." }
    })
    await expect.poll(() => text("#messages"), { timeout: 10_000 }).toContain("Hello, it is sealed.")

    await page.fill("#message", "Great, see you at 6")
    await page.click("#message-form button")
    await expect.poll(() => page.locator("#messages li").count(), { timeout: 10_000 }).toBe(5)
    const { data } = await seller.GET("/conversations/{id}/messages", { params: { path: { id: conversationId } } })
    expect(data.messages.map((m) => [m.kind, m.message_text]).slice(0, 2)).toEqual([
      ["text", "Great, see you at 6"],
      ["text", "Hello, it is sealed."]
    ])
    expect(data.messages.map((m) => m.kind).slice(2)).toEqual(["revision", "revision", "counter"])
    expect(await text("#error")).toBe("")
  }, 60_000)
})
