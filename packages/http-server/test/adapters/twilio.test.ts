import { describe, expect, it } from "@effect/vitest"
import { SmsDeliveryFailed } from "@talab/core"
import { Effect, Exit } from "effect"
import { TwilioSms } from "../../src/adapters/sms/index.js"
import { fakeHttpServer, refusedUrl } from "./support/fakeHttpServer.js"
import { captureLogs } from "./support/logCapture.js"

const accountSid = "AC0123456789abcdef0123456789abcdef"
const authToken = "twilio-auth-token"
const from = "+15005550006"
const messagesPath = `/2010-04-01/Accounts/${accountSid}/Messages.json`

const created = {
  status: 201,
  body: { sid: "SM0123456789abcdef0123456789abcdef", status: "queued", to: "+966501234567", from }
}
const serviceUnavailable = {
  status: 503,
  body: {
    code: 20503,
    message: "Service Unavailable",
    more_info: "https://www.twilio.com/docs/errors/20503",
    status: 503
  }
}

const twilio = (baseUrl: string, overrides: Partial<TwilioSms.TwilioSmsOptions> = {}) =>
  TwilioSms.make({ accountSid, authToken, from, baseUrl, retryBaseDelay: "10 millis", ...overrides })

// Warnings about failed sends are expected here; keep them out of the test output.
const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, captureLogs().layer)

describe("TwilioSms", () => {
  it.live(
    "logs a failed send with the number masked, also where Twilio's message quotes it, and never the text",
    () => {
      const { logs, layer } = captureLogs()
      return Effect.gen(function* () {
        const fake = yield* fakeHttpServer(() => ({
          status: 400,
          body: { code: 21610, message: "Attempt to send to unsubscribed recipient +966501234567", status: 400 }
        }))
        const sender = yield* twilio(fake.url)
        yield* Effect.exit(sender.send({ to: "+966501234567", body: "Your Talab code is 482913", code: "482913" }))
        expect(logs).toHaveLength(1)
        expect(logs[0]!.annotations).toMatchObject({
          to: "+9665******67",
          reason: "Attempt to send to unsubscribed recipient +9665******67"
        })
        expect(JSON.stringify(logs)).not.toContain("+966501234567")
        expect(JSON.stringify(logs)).not.toContain("482913")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }
  )

  it.live("posts the form to the Messages resource with basic auth", () =>
    Effect.gen(function* () {
      const fake = yield* fakeHttpServer(() => created)
      const sender = yield* twilio(fake.url)

      yield* sender.send({ to: "+966501234567", body: "Your Talab code is 482913 & welcome", code: "482913" })

      expect(fake.requests).toHaveLength(1)
      const request = fake.requests[0]!
      expect(request.method).toBe("POST")
      expect(request.path).toBe(messagesPath)
      expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded")
      expect(request.headers.authorization).toBe(
        `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`
      )
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        To: "+966501234567",
        From: from,
        Body: "Your Talab code is 482913 & welcome"
      })
    }).pipe(Effect.scoped)
  )

  it.live("maps Twilio's 400 error body to SmsDeliveryFailed without retrying", () =>
    Effect.gen(function* () {
      const fake = yield* fakeHttpServer(() => ({
        status: 400,
        body: {
          code: 21211,
          message: "The 'To' number +1555 is not a valid phone number.",
          more_info: "https://www.twilio.com/docs/errors/21211",
          status: 400
        }
      }))
      const sender = yield* twilio(fake.url)

      const exit = yield* Effect.exit(sender.send({ to: "+1555", body: "hi" }))

      expect(exit).toStrictEqual(
        Exit.fail(
          new SmsDeliveryFailed({
            reason: "The 'To' number +1555 is not a valid phone number.",
            status: 400,
            providerCode: 21211
          })
        )
      )
      expect(fake.requests).toHaveLength(1)
    }).pipe(Effect.scoped, quiet)
  )

  it.live("retries a 503 and succeeds on the next attempt", () =>
    Effect.gen(function* () {
      const fake = yield* fakeHttpServer((_, index) => (index === 0 ? serviceUnavailable : created))
      const sender = yield* twilio(fake.url)

      yield* sender.send({ to: "+966501234567", body: "hello" })

      expect(fake.requests).toHaveLength(2)
      expect(fake.requests[1]!.body).toBe(fake.requests[0]!.body)
    }).pipe(Effect.scoped)
  )

  it.live("retries 429 too, and gives up after the configured retries with the last status", () =>
    Effect.gen(function* () {
      const fake = yield* fakeHttpServer(() => ({
        status: 429,
        body: {
          code: 20429,
          message: "Too Many Requests",
          more_info: "https://www.twilio.com/docs/errors/20429",
          status: 429
        }
      }))
      const sender = yield* twilio(fake.url, { retries: 2 })

      const exit = yield* Effect.exit(sender.send({ to: "+966501234567", body: "hello" }))

      expect(exit).toStrictEqual(
        Exit.fail(new SmsDeliveryFailed({ reason: "Too Many Requests", status: 429, providerCode: 20429 }))
      )
      expect(fake.requests).toHaveLength(3)
    }).pipe(Effect.scoped, quiet)
  )

  it.live("times out a hanging attempt and retries it", () =>
    Effect.gen(function* () {
      const fake = yield* fakeHttpServer((_, index) => (index === 0 ? new Promise(() => {}) : created))
      const sender = yield* twilio(fake.url, { timeout: "200 millis" })

      yield* sender.send({ to: "+966501234567", body: "hello" })

      expect(fake.requests).toHaveLength(2)
    }).pipe(Effect.scoped, quiet)
  )

  it.live("fails without a status when Twilio cannot be reached", () =>
    Effect.gen(function* () {
      const sender = yield* twilio(yield* refusedUrl, { retries: 1 })

      const error = yield* Effect.flip(sender.send({ to: "+966501234567", body: "hello" }))

      expect(error).toBeInstanceOf(SmsDeliveryFailed)
      expect(error.status).toBeUndefined()
      expect(error.reason).toMatch(/^Twilio unreachable/)
    }).pipe(quiet)
  )
})
