import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import {
  freePort,
  killStartedServers,
  migratedDataDir,
  startServer as startChild,
  waitUntilLive
} from "../support/child-server.js"

/*
 * Secrets stay out of logs, which more people and systems read than the database, in the real process an operator runs:
 * a sign-in, a push about an offer and a push about a message, with the console and log providers allowed in
 * production. Nothing it writes holds a full phone number, a one-time code, a token or a message's text. In development
 * the console SMS line still shows the code (that is how the README's quick start signs in), with the number masked.
 */

const dataDir = mkdtempSync(join(tmpdir(), "talab-logs-"))

afterEach(killStartedServers)
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const startServer = async (variables: Record<string, string>) => {
  const port = await freePort()
  const child = startChild({ DATA_DIR: migratedDataDir(), PORT: String(port), ...variables })
  await waitUntilLive(port, child)
  // What the process wrote, both streams.
  const output = {
    get text() {
      return child.output.stdout + child.output.stderr
    }
  }
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {})
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const json: any = await response.json().catch(() => undefined)
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json.data
  }
  // How the process shuts down is not what these tests are about: what it wrote up to now is.
  const stop = async () => {
    child.child.kill("SIGTERM")
    const timer = setTimeout(() => child.child.kill("SIGKILL"), 3_000)
    await child.exited
    clearTimeout(timer)
  }
  return { output, call, stop }
}

const waitFor = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 20_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("secrets stay out of the logs", () => {
  it("in production: a sign-in, an offer push and a message push log no number, code, token or text", async () => {
    const outbox = join(dataDir, "sms.jsonl")
    const admin = "+966551110001"
    const sellerPhone = "+966551110002"
    const buyerPhone = "+966551110003"
    const pushToken = "fcm-device-token-0123456789abcdef-SECRET"
    const messageText = "meet me at gate 7 with the invoice"
    const server = await startServer({
      NODE_ENV: "production",
      JWT_SECRET: "a-production-secret-of-at-least-32-bytes",
      ALLOW_CONSOLE_PROVIDERS: "true",
      SMS_OUTBOX_FILE: outbox,
      ADMIN_PHONE_NUMBERS: admin
    })
    const codes: Array<string> = []
    const tokens: Array<string> = []
    const signIn = async (phone: string) => {
      await server.call("POST", "/auth/request-otp", undefined, { phone_number: phone })
      const lines = readFileSync(outbox, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
      const code = lines.filter((line) => line.to === phone).at(-1).code as string
      codes.push(code)
      const verified = await server.call("POST", "/auth/verify-otp", undefined, { phone_number: phone, otp_code: code })
      tokens.push(verified.tokens.access_token, verified.tokens.refresh_token)
      return verified.tokens.access_token as string
    }

    const adminToken = await signIn(admin)
    const sellerToken = await signIn(sellerPhone)
    const profile = await server.call("POST", "/seller-profiles", sellerToken, {
      business_name: "Gate Phones",
      location_district: "Olaya"
    })
    await server.call("PUT", `/admin/seller-profiles/${profile.id}/approve`, adminToken)
    const buyerToken = await signIn(buyerPhone)
    await server.call("POST", "/device-tokens", buyerToken, { platform: "android", push_token: pushToken })
    const request = await server.call("POST", "/requests", buyerToken, {
      category: "phone",
      budget_min: 100,
      budget_max: 200,
      location_district: "Olaya"
    })
    await server.call("POST", "/offers", sellerToken, { request_id: request.id, price: 150, availability: "Today" })
    const conversations = await server.call("GET", "/conversations/my", buyerToken)
    await server.call("POST", `/conversations/${conversations.conversations[0].id}/messages`, sellerToken, {
      message_text: messageText
    })
    const pushLines = () => server.output.text.split("\n").filter((line) => line.includes("Push not sent"))
    await waitFor(() => pushLines().length >= 2, "two pushes")
    await server.stop()

    const log = server.output.text
    // What was logged is there: the SMS lines with the numbers masked, and both pushes with the token masked.
    expect(log).toContain("+9665******01")
    expect(pushLines().map((line) => JSON.parse(line).annotations)).toEqual([
      expect.objectContaining({ type: "offer_created", push_token: "fcm-…CRET" }),
      expect.objectContaining({ type: "message", push_token: "fcm-…CRET" })
    ])
    for (const secret of [admin, sellerPhone, buyerPhone, ...codes, pushToken, messageText, ...tokens]) {
      expect(log, `the log holds ${secret}`).not.toContain(secret)
    }
    expect(log).not.toContain("OTP for")
    // Nor the national part of a number (the digits after the country code).
    for (const phone of [admin, sellerPhone, buyerPhone]) expect(log).not.toContain(phone.slice(4))
  }, 240_000)

  it("in development: the console SMS line shows the code to sign in with, the number masked", async () => {
    const phone = "+966551110009"
    const server = await startServer({})
    await server.call("POST", "/auth/request-otp", undefined, { phone_number: phone })
    await waitFor(() => server.output.text.includes("SMS not sent"), "the SMS line")
    await server.stop()
    const line = server.output.text.split("\n").find((text) => text.includes("SMS not sent"))!
    expect(line).toMatch(/level=WARN/)
    expect(line).toMatch(/\b\d{6}\b/)
    expect(line).toContain("+9665******09")
    // The code again, plainly, on a line of its own.
    const code = /OTP for \+9665\*{6}09: (\d{6})"/.exec(server.output.text)?.[1]
    expect(code).toBeDefined()
    expect(line).toContain(code)
    expect(server.output.text).not.toContain(phone)
  }, 240_000)
})
