import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { errorMessages } from "@talab/contract"
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Language, type MessageKey, translate } from "../../../admin-console/src/i18n.js"
import { ADMIN_PHONE, conversationOfOffer, market, marketSettings, postMessage } from "../support/fixtures.js"
import { type Backend, backends, newPhone, useServer } from "../support/harness.js"

/*
 * The admin console at /admin/ in headless Chromium (Debian's, /usr/bin/chromium, or $CHROMIUM), on a started
 * server and under the headers it sends (its content policy included), in Arabic and in English: a non-admin is
 * refused, an admin signs in and the page takes the admin's own language (the browser asks for the other one),
 * approves an applicant, rejects one with a reason by keyboard alone, turns the pages of the applications,
 * resolves a report from the list and one after reading its deal's conversation, sees the API's
 * REPORT_NOT_PENDING, in their language, for a report another admin resolved meanwhile, looks a seller up by phone,
 * suspends and reinstates them, and finds each of those actions in the audit log. What the page does is read back
 * through the API. The page logs no error, warning, failed request or content-policy
 * violation but the one refusal it provokes on purpose.
 *
 * Screenshots of each step are written to apps/server/test/artifacts/console/ (ignored by git; kept by CI as
 * the run's artefacts) for a person to look at.
 */

const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium"
const artefacts = fileURLToPath(new URL("../artifacts/console/", import.meta.url))
const VIOLATION = "CSP violation: "
const UI_MS = 20_000

/** Waits until the locator shows an element (with the text, when given). */
const shows = (locator: Locator, text?: string | RegExp) =>
  (text === undefined ? locator : locator.filter({ hasText: text }))
    .first()
    .waitFor({ state: "visible", timeout: UI_MS })

/** Waits until the locator finds no element. */
const isGone = (locator: Locator) => expect.poll(() => locator.count(), { timeout: UI_MS }).toBe(0)

/** The words of the console, as the admin reads them. */
const words = (language: Language) => (key: MessageKey, values?: Record<string, string | number>) =>
  translate(language, key, values)

/** Each language on one database, so both databases serve the console and both languages are walked through. */
const runs: ReadonlyArray<{ readonly language: Language; readonly backend: Backend }> = [
  { language: "ar", backend: "pglite" },
  { language: "en", backend: "postgres" }
]

describe.each(runs)("the admin console in $language on $backend", ({ language, backend }) => {
  const server = useServer(backend, { settings: marketSettings })
  const m = market(server)
  const t = words(language)
  // The browser asks for the other language: the page must follow the admin's, not the browser's.
  const browserLanguage: Language = language === "ar" ? "en" : "ar"
  const before = words(browserLanguage)
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let policy: string | undefined
  const problems: Array<string> = []
  // Answers the test provokes on purpose (the report resolved meanwhile): not a problem of the page.
  const provoked: Array<string> = []
  let shot = 0
  const screenshot = async (name: string) => {
    shot += 1
    await page.screenshot({
      path: join(artefacts, `${language}-${String(shot).padStart(2, "0")}-${name}.png`),
      fullPage: true
    })
  }

  const dialog = () => page.getByRole("dialog")
  const outcome = () => page.getByRole("status").filter({ hasText: /\S/ })

  /** Signs a phone number in through the page, with the code the server sent by SMS. */
  const signInThroughPage = async (phone: string, w: typeof t) => {
    await page.getByLabel(w("phoneLabel")).fill(phone)
    await page.getByRole("button", { name: w("sendCode") }).click()
    await expect.poll(() => server().sms.lastCode(phone), { timeout: UI_MS }).toBeDefined()
    await page.getByLabel(w("codeLabel")).fill(server().sms.lastCode(phone)!)
    await page.getByRole("button", { name: w("signIn"), exact: true }).click()
  }

  type Applicant = { readonly profileId: string; readonly business: string; readonly token: string }
  let approvedOne: Applicant
  let rejectedOne: Applicant
  let warned: { readonly reportId: string; readonly name: string }
  let raced: { readonly reportId: string; readonly name: string }
  let discussed: { readonly reportId: string; readonly name: string; readonly messages: ReadonlyArray<string> }
  let suspendee: { readonly profileId: string; readonly userId: string; readonly phone: string; readonly name: string }
  const rejectionReason = language === "ar" ? "الاسم التجاري لا يطابق السجل" : "The business name does not match"

  beforeAll(async () => {
    mkdirSync(artefacts, { recursive: true })
    // This run's screenshots only: an earlier run's would be taken for this one's.
    for (const file of readdirSync(artefacts)) if (file.startsWith(`${language}-`)) rmSync(join(artefacts, file))
    const admin = await m.admin()
    m.expectStatus(await m.api().put("/users/me", { token: admin.token, body: { language } }), 200, "language")
    // More pending applications than a page holds (20), the two the admin decides on the newest.
    for (let i = 1; i <= 21; i += 1) await m.applicant(`Filler ${i}`, { business_name: `Filler shop ${i}` })
    const approving = await m.applicant("Sara", { business_name: `Sara Phones ${language}` })
    const rejecting = await m.applicant("Omar", { business_name: `Omar Gadgets ${language}` })
    approvedOne = { profileId: approving.profileId, business: `Sara Phones ${language}`, token: approving.token }
    rejectedOne = { profileId: rejecting.profileId, business: `Omar Gadgets ${language}`, token: rejecting.token }
    const report = async (reportedName: string) => {
      const reporter = await m.user("Reporter")
      const reported = await m.seller(reportedName)
      const filed = m.expectStatus(
        await m.api().post("/reports", {
          token: reporter.token,
          body: { reported_user_id: reported.userId, reason: "no_show", description: "Did not come" }
        }),
        201,
        "report"
      )
      return { reportId: filed.body.data.id, name: reportedName }
    }
    warned = await report("Khalid")
    raced = await report("Faisal")
    // A deal whose buyer reports the seller, after a few messages.
    const buyer = await m.user("Huda")
    const dealer = await m.seller("Nasser")
    const posted = await m.request(buyer)
    const offered = await m.offer(dealer, posted.id)
    const deal = await m.accept(buyer, offered.id)
    const conversationId = await conversationOfOffer(m.api(), buyer, offered.id)
    const messages = ["Are you coming at five?", "متأخر قليلاً، في الطريق"]
    await postMessage(m.api(), buyer, conversationId, messages[0]!)
    await postMessage(m.api(), dealer, conversationId, messages[1]!)
    const filed = m.expectStatus(
      await m.api().post("/reports", {
        token: buyer.token,
        body: { reported_user_id: dealer.userId, deal_id: deal.id, reason: "no_show", description: "Never came" }
      }),
      201,
      "report about a deal"
    )
    discussed = { reportId: filed.body.data.id, name: "Nasser", messages }
    // A seller is named by their business in the console.
    const yasmin = await m.seller("Yasmin", { business_name: "Yasmin Mobiles" })
    suspendee = { profileId: yasmin.profileId, userId: yasmin.userId, phone: yasmin.phone, name: "Yasmin Mobiles" }

    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
    context = await browser.newContext({
      locale: browserLanguage === "ar" ? "ar-SA" : "en-US",
      viewport: { width: 1280, height: 900 }
    })
    page = await context.newPage()
    // Runs outside the page's content policy, so it reports what that policy refuses.
    await page.addInitScript((prefix) => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const { violatedDirective, blockedURI, sourceFile, lineNumber } = event
        console.error(prefix + JSON.stringify({ violatedDirective, blockedURI, sourceFile, lineNumber }))
      })
    }, VIOLATION)
    const isProvoked = (text: string) => provoked.some((url) => text.includes(url))
    page.on("console", (message) => {
      const type = message.type()
      if ((type === "error" || type === "warning") && !isProvoked(`${message.text()} ${message.location().url}`))
        problems.push(`${type}: ${message.text()}`)
    })
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`))
    page.on("response", (response) => {
      if (response.status() >= 400 && !isProvoked(response.url()))
        problems.push(`${response.status()} for ${response.url()}`)
    })
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`))
    const response = await page.goto(`${server().baseUrl}/admin/`)
    policy = response?.headers()["content-security-policy"]
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
  })

  it("is served under a strict content policy: its own scripts and styles only, no inline code, no eval", () => {
    const directives = new Map(
      (policy ?? "").split(";").map((part) => {
        const [name = "", ...values] = part.trim().split(/\s+/)
        return [name, values] as const
      })
    )
    expect(directives.get("default-src")).toEqual(["'none'"])
    expect(directives.get("script-src")).toEqual(["'self'"])
    expect(directives.get("style-src")).toEqual(["'self'"])
    expect(directives.get("connect-src")).toEqual(["'self'"])
    expect(directives.get("frame-ancestors")).toEqual(["'none'"])
    expect(directives.get("require-trusted-types-for")).toEqual(["'script'"])
  })

  it("shows the sign-in in the browser's language before anyone signs in", async () => {
    await expect.poll(() => page.locator("html").getAttribute("lang"), { timeout: UI_MS }).toBe(browserLanguage)
    expect(await page.locator("html").getAttribute("dir")).toBe(browserLanguage === "ar" ? "rtl" : "ltr")
    await page.getByRole("heading", { level: 1, name: before("signInHeading") }).waitFor({ timeout: UI_MS })
    await screenshot("sign-in")
  })

  it("refuses a non-admin with a clear message and keeps no session of theirs", async () => {
    await signInThroughPage(newPhone(), before)
    await shows(page.getByRole("alert"), before("notAdmin"))
    // Still the sign-in, and the tab holds no session.
    await shows(page.getByLabel(before("phoneLabel")))
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
    expect(await page.getByRole("navigation", { name: t("navLabel") }).count()).toBe(0)
    await screenshot("non-admin-refused")
  })

  it("signs an admin in by phone and code, then speaks the admin's language", async () => {
    await page.getByLabel(before("phoneLabel")).fill("")
    await signInThroughPage(ADMIN_PHONE, before)
    await page.getByRole("heading", { level: 1, name: t("applicationsHeading") }).waitFor({ timeout: UI_MS })
    expect(await page.locator("html").getAttribute("lang")).toBe(language)
    expect(await page.locator("html").getAttribute("dir")).toBe(language === "ar" ? "rtl" : "ltr")
    await screenshot("applications")
  })

  it("labels every control of the page", async () => {
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll("input, select, textarea, button"))
        .filter((element) => {
          const name =
            element.getAttribute("aria-label") ??
            (element instanceof HTMLButtonElement
              ? element.textContent
              : Array.from((element as HTMLInputElement).labels ?? [], (label) => label.textContent).join(""))
          return (name ?? "").trim() === ""
        })
        .map((element) => element.outerHTML)
    )
    expect(unlabelled).toEqual([])
  })

  it("approves an applicant after a confirmation", async () => {
    await page.getByRole("button", { name: `${t("approve")}: ${approvedOne.business}` }).click()
    await shows(dialog(), t("approveTitle", { name: approvedOne.business }))
    await screenshot("approve-dialog")
    await dialog()
      .getByRole("button", { name: t("approve"), exact: true })
      .click()
    await shows(outcome(), t("approved", { name: approvedOne.business }))
    await isGone(page.getByRole("row", { name: new RegExp(approvedOne.business) }))
    const pending = await pendingIds()
    expect(pending).not.toContain(approvedOne.profileId)
    expect(await profileStatus(approvedOne)).toBe("approved")
  })

  it("rejects an applicant with a reason, with the keyboard alone", async () => {
    const reject = page.getByRole("button", { name: `${t("reject")}: ${rejectedOne.business}` })
    await reject.focus()
    await page.keyboard.press("Enter")
    await shows(dialog())
    // Focus moved into the dialog, on its first field: the reason.
    expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA")
    await page.keyboard.type(rejectionReason)
    await screenshot("reject-dialog")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await shows(outcome(), t("rejected", { name: rejectedOne.business }))
    expect(await pendingIds()).not.toContain(rejectedOne.profileId)
    // The applicant reads the reason on their own profile.
    const me = await m.api().get("/users/me", { token: rejectedOne.token })
    expect(me.body.data.seller_profile).toMatchObject({ status: "rejected", rejection_reason: rejectionReason })
    await screenshot("rejected")
  })

  it("turns the pages of the applications", async () => {
    // 21 fillers are left: 20 on the first page, the oldest on the second.
    await shows(page.getByText(t("pageOf", { page: 1, pages: 2, total: 21 })))
    await page.getByRole("button", { name: t("nextPage") }).click()
    await shows(page.getByText(t("pageOf", { page: 2, pages: 2, total: 21 })))
    await shows(page.getByRole("row", { name: /Filler shop 1\b/ }))
    expect(page.url()).toContain("#/applications?page=2")
    await screenshot("applications-page-2")
  })

  it("resolves a report with an action and notes, after a confirmation", async () => {
    await page.getByRole("link", { name: t("navReports"), exact: true }).click()
    await page.getByRole("heading", { level: 1, name: t("reportsHeading") }).waitFor({ timeout: UI_MS })
    expect(await page.getByLabel(t("statusFilter")).inputValue()).toBe("pending")
    await page.getByRole("button", { name: `${t("resolve")}: ${warned.name}` }).click()
    await dialog()
      .getByRole("radio", { name: new RegExp(t("action_warn")) })
      .check()
    await dialog().getByLabel(t("notesLabel")).fill("Warned by phone")
    await screenshot("resolve-dialog")
    await dialog()
      .getByRole("button", { name: t("resolve"), exact: true })
      .click()
    await shows(outcome(), t("resolved", { name: warned.name, action: t("action_warn") }))
    const { token } = await m.admin()
    const resolved = await m.api().get("/admin/reports?status=resolved", { token })
    expect(resolved.body.data.reports.find((report) => report.id === warned.reportId)).toMatchObject({
      status: "resolved",
      action: "warn",
      notes: "Warned by phone"
    })
    // Filtered by status: resolved, in words (not by colour alone).
    await page.getByLabel(t("statusFilter")).selectOption("resolved")
    const row = page.getByRole("row", { name: new RegExp(warned.name) })
    await shows(row, t("status_resolved"))
    await shows(row, t("action_warn"))
    expect(page.url()).toContain("#/reports?status=resolved")
    await screenshot("reports-resolved")
  })

  it("shows the API's REPORT_NOT_PENDING, in the admin's language, for a report resolved meanwhile", async () => {
    await page.getByLabel(t("statusFilter")).selectOption("pending")
    await page.getByRole("button", { name: `${t("resolve")}: ${raced.name}` }).click()
    await shows(dialog())
    // Another admin resolves it first.
    const { token } = await m.admin()
    m.expectStatus(
      await m.api().put(`/admin/reports/${raced.reportId}/resolve`, { token, body: { action: "dismiss" } }),
      200,
      "resolve meanwhile"
    )
    provoked.push(`/api/v1/admin/reports/${raced.reportId}/resolve`)
    await dialog()
      .getByRole("button", { name: t("resolve"), exact: true })
      .click()
    await shows(dialog().getByRole("alert"), errorMessages.REPORT_NOT_PENDING[language])
    await screenshot("report-not-pending")
    await dialog()
      .getByRole("button", { name: t("cancel") })
      .click()
    await isGone(dialog())
  })

  it("reads a report's deal and conversation, then resolves the report from there", async () => {
    await page.getByLabel(t("statusFilter")).selectOption("pending")
    await page.getByRole("link", { name: `${t("openReport")}: ${discussed.name}` }).click()
    await page
      .getByRole("heading", { level: 1, name: t("reportHeading", { name: discussed.name }) })
      .waitFor({ timeout: UI_MS })
    const conversation = page.getByRole("list", { name: t("conversationHeading") })
    for (const text of discussed.messages) await shows(conversation.getByRole("listitem"), text)
    await shows(conversation.getByRole("listitem"), `${discussed.name} (${t("seller")})`)
    await screenshot("report-conversation")
    await page.getByRole("button", { name: t("resolve"), exact: true }).click()
    await dialog()
      .getByRole("radio", { name: new RegExp(t("action_dismiss")) })
      .check()
    await dialog()
      .getByRole("button", { name: t("resolve"), exact: true })
      .click()
    await shows(outcome(), t("resolved", { name: discussed.name, action: t("action_dismiss") }))
    await shows(page.locator("dl.facts"), t("status_dismissed"))
    const { token } = await m.admin()
    const read = await m.api().get(`/admin/reports/${discussed.reportId}`, { token })
    expect(read.body.data).toMatchObject({ status: "dismissed", action: "dismiss" })
    await screenshot("report-dismissed")
  })

  it("looks a user up by phone number, and says so when nobody has it", async () => {
    await page.getByRole("link", { name: t("navUsers"), exact: true }).click()
    await page.getByRole("heading", { level: 1, name: t("usersHeading") }).waitFor({ timeout: UI_MS })
    const nobody = newPhone()
    await page.getByLabel(t("phoneLabel")).fill(nobody)
    await page.getByRole("button", { name: t("lookup") }).click()
    await shows(page.getByRole("status"), t("noUserWithPhone", { phone: `\u2068${nobody}\u2069` }))
    await page.getByLabel(t("phoneLabel")).fill(suspendee.phone)
    await page.getByRole("button", { name: t("lookup") }).click()
    await shows(page.getByRole("article"), suspendee.phone)
    await shows(page.getByRole("article"), t("status_approved"))
    await screenshot("user")
  })

  it("suspends a seller with a reason, then reinstates them", async () => {
    const card = page.getByRole("article")
    await card.getByRole("button", { name: t("suspend") }).click()
    // The reason is required: the dialog does not send the call without one.
    await dialog()
      .getByRole("button", { name: t("suspend"), exact: true })
      .click()
    await shows(dialog())
    expect(await sellerStatus(suspendee.userId)).toBe("approved")
    await dialog().getByLabel(t("reasonRequired")).fill("Three buyers reported fake phones")
    await dialog()
      .getByRole("button", { name: t("suspend"), exact: true })
      .click()
    await shows(card.getByRole("status"), t("suspended", { name: suspendee.name }))
    await shows(card, t("status_suspended"))
    expect(await sellerStatus(suspendee.userId)).toBe("suspended")
    await screenshot("suspended")
    await card.getByRole("button", { name: t("reinstate") }).click()
    await dialog().getByLabel(t("reasonRequired")).fill("The reports were settled")
    await dialog()
      .getByRole("button", { name: t("reinstate"), exact: true })
      .click()
    await shows(card.getByRole("status"), t("reinstated", { name: suspendee.name }))
    await shows(card, t("status_approved"))
    expect(await sellerStatus(suspendee.userId)).toBe("approved")
  })

  it("finds each of the admin's actions in the audit log, filtered by action and target", async () => {
    await page.getByRole("link", { name: t("navAudit"), exact: true }).click()
    await page.getByRole("heading", { level: 1, name: t("auditHeading") }).waitFor({ timeout: UI_MS })
    const actions: ReadonlyArray<readonly [string, string, string?]> = [
      ["seller_profile.approve", approvedOne.profileId],
      ["seller_profile.reject", rejectedOne.profileId, rejectionReason],
      ["report.resolve", warned.reportId, "Warned by phone"],
      ["report.view", discussed.reportId],
      ["report.resolve", discussed.reportId, "dismiss"],
      ["seller_profile.suspend", suspendee.profileId, "Three buyers reported fake phones"],
      ["seller_profile.reinstate", suspendee.profileId, "The reports were settled"]
    ]
    for (const [action, targetId, changed] of actions) {
      await page.getByLabel(t("actionFilter")).selectOption(action)
      await page.getByLabel(t("targetFilter")).fill(targetId)
      await page.getByRole("button", { name: t("applyFilters") }).click()
      await expect.poll(() => page.url(), { timeout: UI_MS }).toContain(`target_id=${targetId}`)
      const row = page.getByRole("row").filter({ hasText: targetId }).filter({ hasText: action })
      await shows(row)
      if (changed !== undefined) await shows(row, changed)
      expect(await page.getByRole("row").filter({ hasText: targetId }).count()).toBeGreaterThanOrEqual(1)
    }
    await screenshot("audit-log")
  })

  it("logs no error, warning, failed request or content-policy violation", () => {
    expect(problems).toEqual([])
  })

  /** An applicant's seller profile's state, as they see it. */
  const profileStatus = async (applicant: Applicant) =>
    (await m.api().get("/users/me", { token: applicant.token })).body.data.seller_profile?.status

  /** A user's seller profile's state, as the admin reads it. */
  const sellerStatus = async (userId: string) => {
    const { token } = await m.admin()
    return (await m.api().get(`/admin/users/${userId}`, { token })).body.data.seller_profile?.status
  }

  /** The ids of every pending application, read through the API. */
  const pendingIds = async () => {
    const { token } = await m.admin()
    const listed = await m.api().get("/admin/seller-profiles/pending?per_page=50", { token })
    return listed.body.data.profiles.map((profile) => profile.id)
  }
})

describe.each(backends)("the admin console's routes on %s", (backend) => {
  const server = useServer(backend, { settings: marketSettings })
  const m = market(server)
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server().baseUrl}${path}`, { headers, redirect: "manual" })

  it("serves the page at exactly /admin/, with its policy, and sends /admin there", async () => {
    const page = await get("/admin/")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self';")
    expect(page.headers.get("referrer-policy")).toBe("no-referrer")
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    const html = await page.text()
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=/)
    const moved = await get("/admin")
    expect(moved.status).toBe(308)
    expect(moved.headers.get("location")).toBe("/admin/")
  })

  it("serves every file the page names, by its type, without a token", async () => {
    const html = await (await get("/admin/")).text()
    const assets = [...html.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map(([, path]) => path!)
    expect(assets.sort()).toEqual(["/admin/assets/app.css", "/admin/assets/app.js"])
    for (const asset of assets) {
      const file = await get(asset)
      expect(file.status, asset).toBe(200)
      expect(file.headers.get("content-type")).toBe(
        asset.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
      )
      // Revalidated by its ETag, so a new build reaches the browser at its next visit.
      const etag = file.headers.get("etag")
      expect(etag).not.toBeNull()
      expect((await get(asset, { "if-none-match": etag! })).status).toBe(304)
    }
  })

  it.each([
    "/admin/assets/missing.js",
    "/admin/assets/",
    "/admin/index.html",
    "/admin/reports",
    "/admin//",
    "/Admin/",
    "/admin/assets/%2e%2e/index.html",
    "/admin/assets/../index.html"
  ])("answers 404 NOT_FOUND to %s", async (path) => {
    const response = await get(path)
    expect(response.status).toBe(404)
    expect((await response.json()).error.code).toBe("NOT_FOUND")
  })

  it("leaves the admin API as it was: 401 without a token, 403 to a non-admin, 200 to an admin", async () => {
    const user = await m.user()
    const admin = await m.admin()
    for (const path of ["/admin/reports", "/admin/seller-profiles/pending"] as const) {
      expect((await m.api().get(path)).status).toBe(401)
      expect((await m.api().get(path, { token: user.token })).status).toBe(403)
      expect((await m.api().get(path, { token: admin.token })).status).toBe(200)
    }
  })
})
