import { generateKeyPairSync } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { type Push, PushOutcome } from "@talab/core"
import { Deferred, Effect } from "effect"
import { jwtVerify } from "jose"
import { ApnsPush, PushConfigError } from "../../src/adapters/push/index.js"
import { type ApnsReply, type ApnsRequest, fakeApns as fakeApnsServer } from "./support/fakeApns.js"
import { captureLogs } from "./support/logCapture.js"
import { makeSelfSignedCert } from "./support/selfSignedCert.js"

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const tls = makeSelfSignedCert()
const keyId = "ABC123DEFG"
const teamId = "DEF123GHIJ"
const bundleId = "sa.talab.app"
const deviceToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

const push: Push = {
  userId: "5b0f3a4e-0000-4000-8000-000000000002",
  platform: "ios",
  pushToken: deviceToken,
  type: "message",
  title: "رسالة جديدة",
  body: "Seller: is it still available?",
  data: { conversation_id: "c-1" }
}

const fakeApns = (reply: (request: ApnsRequest, index: number) => ApnsReply) => fakeApnsServer(tls, reply)

const apns = (origin: string, overrides: Partial<ApnsPush.ApnsPushOptions> = {}) =>
  ApnsPush.make({ keyId, teamId, bundleId, privateKey: privateKeyPem, origin, tls: { ca: tls.cert }, ...overrides })

const reasonOf = (outcome: PushOutcome) => ("reason" in outcome ? outcome.reason : "")

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, captureLogs().layer)

describe("ApnsPush", () => {
  it.live("sends the alert over HTTP/2 with a provider JWT and the APNs headers", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 200 }))
      const sender = yield* apns(fake.origin)

      const outcome = yield* sender.send(push)

      expect(outcome).toStrictEqual(PushOutcome.Delivered())
      expect(fake.requests).toHaveLength(1)
      const { headers, body } = fake.requests[0]!
      expect(headers[":method"]).toBe("POST")
      expect(headers[":path"]).toBe(`/3/device/${deviceToken}`)
      expect(headers["apns-topic"]).toBe(bundleId)
      expect(headers["apns-push-type"]).toBe("alert")
      expect(headers["apns-priority"]).toBe("10")

      const authorization = String(headers.authorization)
      expect(authorization).toMatch(/^bearer /)
      const verified = yield* Effect.promise(() =>
        jwtVerify(authorization.slice("bearer ".length), publicKey, { algorithms: ["ES256"], issuer: teamId })
      )
      expect(verified.protectedHeader).toMatchObject({ alg: "ES256", kid: keyId })
      expect(Math.abs(verified.payload.iat! - Date.now() / 1000)).toBeLessThan(60)

      expect(JSON.parse(body)).toEqual({
        aps: { alert: { title: "رسالة جديدة", body: "Seller: is it still available?" }, sound: "default" },
        conversation_id: "c-1",
        type: "message"
      })
    }).pipe(Effect.scoped)
  )

  it.live("reuses one HTTP/2 session and one provider token across sends", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 200 }))
      const sender = yield* apns(fake.origin)

      const outcomes = yield* Effect.all([sender.send(push), sender.send(push), sender.send(push)], {
        concurrency: "unbounded"
      })

      expect(outcomes).toStrictEqual(Array(3).fill(PushOutcome.Delivered()))
      expect(fake.sessions).toHaveLength(1)
      expect(new Set(fake.requests.map((request) => request.headers.authorization)).size).toBe(1)
    }).pipe(Effect.scoped)
  )

  it.live("reconnects after the server drops the session", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 200 }))
      const sender = yield* apns(fake.origin)

      yield* sender.send(push)
      const closed = yield* Deferred.make<void>()
      fake.sessions[0]!.once("close", () => Deferred.unsafeDone(closed, Effect.void))
      fake.sessions[0]!.destroy()
      yield* Deferred.await(closed)
      yield* Effect.sleep("50 millis")
      const outcome = yield* sender.send(push)

      expect(outcome).toStrictEqual(PushOutcome.Delivered())
      expect(fake.sessions).toHaveLength(2)
    }).pipe(Effect.scoped)
  )

  it.live("closes the session when the scope ends", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 200 }))
      yield* Effect.scoped(Effect.flatMap(apns(fake.origin), (sender) => sender.send(push)))

      expect(fake.sessions).toHaveLength(1)
      const session = fake.sessions[0]!
      if (!session.closed) {
        yield* Effect.async<void>((resume) => {
          session.once("close", () => resume(Effect.void))
        }).pipe(Effect.timeout("2 seconds"))
      }
      expect(session.closed || session.destroyed).toBe(true)
    }).pipe(Effect.scoped)
  )

  it.live("reports 410 Unregistered and 400 BadDeviceToken as Unregistered", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns((_, index) =>
        index === 0
          ? { status: 410, body: { reason: "Unregistered", timestamp: 1_740_000_000_000 } }
          : { status: 400, body: { reason: "BadDeviceToken" } }
      )
      const sender = yield* apns(fake.origin)

      expect(yield* sender.send(push)).toStrictEqual(PushOutcome.Unregistered())
      expect(yield* sender.send(push)).toStrictEqual(PushOutcome.Unregistered())
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports 429 TooManyRequests and 503 as Retryable", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns((_, index) =>
        index === 0
          ? { status: 429, body: { reason: "TooManyRequests" } }
          : { status: 503, body: { reason: "ServiceUnavailable" } }
      )
      const sender = yield* apns(fake.origin)

      const tooMany = yield* sender.send(push)
      const unavailable = yield* sender.send(push)

      expect(tooMany._tag).toBe("Retryable")
      expect(reasonOf(tooMany)).toBe("APNs answered HTTP 429 TooManyRequests")
      expect(unavailable._tag).toBe("Retryable")
      expect(reasonOf(unavailable)).toBe("APNs answered HTTP 503 ServiceUnavailable")
    }).pipe(Effect.scoped, quiet)
  )

  it.live("refreshes the provider token after ExpiredProviderToken", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns((_, index) =>
        index === 0 ? { status: 403, body: { reason: "ExpiredProviderToken" } } : { status: 200 }
      )
      const sender = yield* apns(fake.origin)

      expect((yield* sender.send(push))._tag).toBe("Retryable")
      expect(yield* sender.send(push)).toStrictEqual(PushOutcome.Delivered())
      const [rejected, renewed] = fake.requests.map((request) => String(request.headers.authorization))
      expect(renewed).not.toBe(rejected)
      yield* Effect.promise(() => jwtVerify(renewed!.slice("bearer ".length), publicKey, { issuer: teamId }))
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports other 4xx answers as Failed", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 400, body: { reason: "DeviceTokenNotForTopic" } }))
      const sender = yield* apns(fake.origin)

      const outcome = yield* sender.send(push)

      expect(outcome).toStrictEqual(PushOutcome.Failed({ reason: "APNs answered HTTP 400 DeviceTokenNotForTopic" }))
    }).pipe(Effect.scoped, quiet)
  )

  it.live("does not trust a certificate outside the configured CA", () =>
    Effect.gen(function* () {
      const fake = yield* fakeApns(() => ({ status: 200 }))
      const sender = yield* apns(fake.origin, { tls: {} })

      const outcome = yield* sender.send(push)

      expect(outcome._tag).toBe("Retryable")
      expect(reasonOf(outcome)).toMatch(/^APNs unreachable: .*self.signed/i)
      expect(fake.requests).toHaveLength(0)
    }).pipe(Effect.scoped, quiet)
  )

  it.effect("rejects an unusable private key at construction", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(apns("https://127.0.0.1:1", { privateKey: "not a key" }))
      expect(error).toBeInstanceOf(PushConfigError)
      expect(error.provider).toBe("apns")
    }).pipe(Effect.scoped)
  )
})
