import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backends, useServer } from "../support/harness.js"

/*
 * The API reference at /docs as a reader's browser shows it: headless Chromium (Debian's, /usr/bin/chromium, or
 * $CHROMIUM) on a started server, under the headers that server sends (its content policy included). The page
 * must list every operation of the served document by its summary and log no error, CSP violations included.
 * A screenshot of the rendered page is kept in a temporary folder the test prints.
 */

const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium"

// Scalar parses and lays out the whole document in the page before it shows anything: seconds of CPU, many more
// on a loaded machine.
const RENDER_MS = 150_000

const VIOLATION = "CSP violation: "

/** What the page's `securitypolicyviolation` event says (this project's TypeScript has no DOM types). */
interface Violation {
  readonly violatedDirective: string
  readonly blockedURI: string
  readonly sourceFile: string
  readonly lineNumber: number
  readonly columnNumber: number
  readonly sample: string
}

/*
 * The one refusal the page's policy is meant to make: zod, inside Scalar's bundle, checks whether it may compile
 * code with `new Function("")` and, refused, validates without compiling (docs/DECISIONS.md).
 */
const isEvalProbe = (violation: Violation) =>
  violation.violatedDirective === "script-src" &&
  violation.blockedURI === "eval" &&
  violation.sourceFile.endsWith("/docs/scalar.js") &&
  violation.sample === ""

/** Text as a reader sees it: Scalar breaks long words with zero-width spaces. */
const readable = (text: string) => text.replaceAll("\u200b", "").replace(/\s+/g, " ")

describe.each(backends)("the /docs page in Chromium on %s", (backend) => {
  const server = useServer(backend)
  let browser: Browser
  let page: Page
  let policy: string | undefined
  let summaries: ReadonlyArray<string>
  const problems: Array<string> = []
  const artefacts = mkdtempSync(join(tmpdir(), "talab-docs-page-"))

  beforeAll(async () => {
    const document = await (await fetch(`${server().apiUrl}/openapi.json`)).json()
    summaries = Object.values<Record<string, { summary?: string }>>(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation.summary === undefined ? [] : [operation.summary]))
    )
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    // Runs outside the page's content policy, so it reports what that policy refuses.
    await page.addInitScript((prefix) => {
      document.addEventListener("securitypolicyviolation", (event: Violation) => {
        const { violatedDirective, blockedURI, sourceFile, lineNumber, columnNumber, sample } = event
        console.error(
          prefix + JSON.stringify({ violatedDirective, blockedURI, sourceFile, lineNumber, columnNumber, sample })
        )
      })
    }, VIOLATION)
    page.on("console", (message) => {
      const text = message.text()
      if (text.startsWith(VIOLATION) && isEvalProbe(JSON.parse(text.slice(VIOLATION.length)))) return
      if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${text}`)
    })
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`))
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`)
    })
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`))
    const response = await page.goto(`${server().baseUrl}/docs`, { timeout: RENDER_MS })
    policy = response?.headers()["content-security-policy"]
    // The reference is up once its sidebar lists the first group's operations (open from the start).
    await page
      .locator('aside[role="navigation"]')
      .getByText(readable(summaries[0]!).slice(0, 8))
      .first()
      .waitFor({ timeout: RENDER_MS })
    await page.screenshot({ path: join(artefacts, "docs.png") })
  }, RENDER_MS + 60_000)

  afterAll(async () => {
    console.log(`/docs screenshots in ${artefacts}`)
    await browser?.close()
  })

  it("is served under a content policy that lets its scripts compile WebAssembly and nothing more", () => {
    const scriptSources = /(?:^|;)\s*script-src ([^;]*)/.exec(policy ?? "")?.[1]?.split(/\s+/)
    expect(scriptSources).toContain("'wasm-unsafe-eval'")
    expect(scriptSources).not.toContain("'unsafe-eval'")
    expect(scriptSources).not.toContain("'unsafe-inline'")
  })

  it("lists every operation of the served document by its summary", async () => {
    expect(summaries.length).toBeGreaterThan(40)
    const sidebar = page.locator('aside[role="navigation"]')
    const closed = sidebar.getByRole("button", { name: "Open Group" })
    // Each group opens on a click; the sidebar then shows its operations. All are clicked in one turn of the page
    // (a render per click took seconds of a loaded machine), then again for any a render put back closed.
    for (let left = await closed.count(); left > 0; left = await closed.count()) {
      await closed.evaluateAll((buttons) => {
        for (const button of buttons) (button as HTMLElement).click()
      })
      await expect.poll(() => closed.count(), { timeout: 10_000 }).toBeLessThan(left)
    }
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader sees
    const shown = readable(await sidebar.innerText())
    const missing = summaries.filter((summary) => !shown.includes(readable(summary)))
    expect(missing).toEqual([])
    await page.screenshot({ path: join(artefacts, "docs-sidebar-open.png") })
  }, 300_000)

  it("logs no error, warning, failed request or content-policy violation", () => {
    expect(problems).toEqual([])
  })
})
