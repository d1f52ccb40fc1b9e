import { createHash } from "node:crypto"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ADMIN_CONSOLE_PATH, isAuthPath } from "../http/RequestPath.js"

export const DOCS_PATH = "/docs"

const HSTS = "max-age=31536000; includeSubDomains"

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi

/**
 * The docs page's policy, derived from the page itself: each inline script the page runs is allowed by
 * its hash and each external script by its origin, so nothing else can run there. The reference (Scalar)
 * injects its own styles, loads its fonts from fonts.scalar.com and sends "try it" requests to this API;
 * its `new Function` is only a feature probe, caught when refused, so no `unsafe-eval`. It parses the document
 * with a WebAssembly module its bundle carries, which a browser compiles only under `'wasm-unsafe-eval'`: that
 * lets the page's allowed scripts compile WebAssembly, and nothing else (no `eval`, no other script).
 */
const docsPolicy = (html: string) => {
  const scripts = new Set<string>()
  for (const [, attributes = "", body = ""] of html.matchAll(SCRIPT)) {
    if (/\btype\s*=\s*["']?application\/json/i.test(attributes)) continue
    const src = /\bsrc\s*=\s*["']([^"']+)["']/i.exec(attributes)?.[1]
    if (src !== undefined) scripts.add(URL.canParse(src) ? new URL(src).origin : "'self'")
    else scripts.add(`'sha256-${createHash("sha256").update(body, "utf8").digest("base64")}'`)
  }
  return [
    "default-src 'none'",
    `script-src ${[...scripts, "'wasm-unsafe-eval'"].join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data: https://fonts.scalar.com",
    "img-src 'self' data: blob: https:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
}

/**
 * The admin console's policy: its own script and stylesheet only (no inline script or style, no eval), calls to
 * this origin's API only, no frames, no forms posted anywhere, no plugins; and Trusted Types required with no
 * policy allowed, so not even the console's own code can write HTML from a string (Preact builds nodes).
 */
const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'"
].join("; ")

/** The console's page: the policy above, no referrer sent with its calls, and a browsing context of its own. */
const CONSOLE_HEADERS = {
  "content-security-policy": CONSOLE_POLICY,
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin"
}

/** The page is built once, so its policy is computed once per response body. */
const policies = new WeakMap<object, string>()
const docsPolicyOf = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.body._tag !== "Uint8Array") return undefined
  const known = policies.get(response.body.body)
  if (known !== undefined) return known
  const policy = docsPolicy(new TextDecoder().decode(response.body.body))
  policies.set(response.body.body, policy)
  return policy
}

/**
 * The security headers of every response: no MIME sniffing, nothing cached from the auth routes (tokens,
 * codes), HSTS when the operator turned it on, and a content policy on the docs page and the admin console.
 */
export const securityHeaders = (
  path: string,
  response: HttpServerResponse.HttpServerResponse,
  options: { readonly hsts: boolean }
): Record<string, string> => {
  const headers: Record<string, string> = { "x-content-type-options": "nosniff" }
  if (isAuthPath(path)) headers["cache-control"] = "no-store"
  if (options.hsts) headers["strict-transport-security"] = HSTS
  if (path === DOCS_PATH && response.status === 200) {
    const policy = docsPolicyOf(response)
    if (policy !== undefined) headers["content-security-policy"] = policy
  }
  if (path === ADMIN_CONSOLE_PATH && response.status === 200) Object.assign(headers, CONSOLE_HEADERS)
  return headers
}
