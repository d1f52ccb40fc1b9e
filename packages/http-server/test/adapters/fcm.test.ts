import { generateKeyPairSync } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { type Push, PushOutcome } from "@talab/core"
import { Effect, TestClock } from "effect"
import { FcmPush, PushConfigError } from "../../src/adapters/push/index.js"
import { fakeFcm, invalidArgument, unauthenticated, unavailable, unregistered } from "./support/fakeFcm.js"
import { type FakeReply, type RecordedRequest, refusedUrl } from "./support/fakeHttpServer.js"
import { captureLogs } from "./support/logCapture.js"

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const clientEmail = "talab-push@talab-test.iam.gserviceaccount.com"
const projectId = "talab-test"

const push: Push = {
  userId: "5b0f3a4e-0000-4000-8000-000000000001",
  platform: "android",
  pushToken: "fcm-device-token-1",
  type: "offer_created",
  title: "New offer",
  body: "A seller sent an offer on your request",
  data: { request_id: "r-1", offer_id: "o-1" }
}

const fakeGoogle = (onSend: (request: RecordedRequest, sendIndex: number) => FakeReply) =>
  fakeFcm({ projectId, publicKey, onSend })

const fcm = (url: string, key = privateKeyPem) =>
  FcmPush.make({
    projectId,
    baseUrl: url,
    serviceAccount: { client_email: clientEmail, private_key: key, token_uri: `${url}/token` }
  })

const delivered = (request: RecordedRequest): FakeReply => ({
  status: 200,
  body: { name: `projects/${projectId}/messages/0:${request.body.length}` }
})

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, captureLogs().layer)

describe("FcmPush", () => {
  it.live("exchanges a signed JWT for an access token and sends the v1 message", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(delivered)
      const sender = yield* fcm(google.url)

      const outcome = yield* sender.send(push)

      expect(outcome).toStrictEqual(PushOutcome.Delivered())
      expect(google.tokenRequests).toHaveLength(1)
      const { grantType, claims, alg } = google.tokenRequests[0]!
      expect(grantType).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer")
      expect(alg).toBe("RS256")
      expect(claims).toMatchObject({
        iss: clientEmail,
        aud: `${google.url}/token`,
        scope: "https://www.googleapis.com/auth/firebase.messaging"
      })
      expect((claims.exp as number) - (claims.iat as number)).toBe(3600)
      expect(Math.abs((claims.iat as number) - Date.now() / 1000)).toBeLessThan(60)

      const [send] = google.sendRequests()
      expect(send!.method).toBe("POST")
      expect(send!.headers.authorization).toBe("Bearer ya29.access-1")
      expect(JSON.parse(send!.body)).toEqual({
        message: {
          token: "fcm-device-token-1",
          notification: { title: "New offer", body: "A seller sent an offer on your request" },
          data: { request_id: "r-1", offer_id: "o-1", type: "offer_created" }
        }
      })
    }).pipe(Effect.scoped)
  )

  it.live("reuses the cached access token across sends", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(delivered)
      const sender = yield* fcm(google.url)

      const outcomes = yield* Effect.all([sender.send(push), sender.send(push), sender.send(push)], {
        concurrency: "unbounded"
      })
      yield* sender.send(push)

      expect(outcomes).toStrictEqual([PushOutcome.Delivered(), PushOutcome.Delivered(), PushOutcome.Delivered()])
      expect(google.tokenRequests).toHaveLength(1)
      expect(google.sendRequests().map((request) => request.headers.authorization)).toEqual(
        Array(4).fill("Bearer ya29.access-1")
      )
    }).pipe(Effect.scoped)
  )

  it.effect("fetches a new access token once the cached one is about to expire", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(delivered)
      const sender = yield* fcm(google.url)

      yield* sender.send(push)
      yield* TestClock.adjust("50 minutes")
      yield* sender.send(push)
      yield* TestClock.adjust("9 minutes")
      yield* sender.send(push)

      expect(google.tokenRequests).toHaveLength(2)
      expect(google.sendRequests().map((request) => request.headers.authorization)).toEqual([
        "Bearer ya29.access-1",
        "Bearer ya29.access-1",
        "Bearer ya29.access-2"
      ])
    }).pipe(Effect.scoped)
  )

  it.live("reports UNREGISTERED (404) as Unregistered", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(() => unregistered)
      const sender = yield* fcm(google.url)

      expect(yield* sender.send(push)).toStrictEqual(PushOutcome.Unregistered())
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports 503 as Retryable with Retry-After, then delivers on the next send", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle((request, index) => (index === 0 ? unavailable : delivered(request)))
      const sender = yield* fcm(google.url)

      const first = yield* sender.send(push)
      const second = yield* sender.send(push)

      expect(first._tag).toBe("Retryable")
      expect(first).toMatchObject({ retryAfterMs: 30_000 })
      expect((first as { reason: string }).reason).toContain("503 UNAVAILABLE")
      expect(second).toStrictEqual(PushOutcome.Delivered())
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports 429 without Retry-After as Retryable without a delay", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(() => ({
        status: 429,
        body: { error: { code: 429, message: "Quota exceeded.", status: "RESOURCE_EXHAUSTED" } }
      }))
      const sender = yield* fcm(google.url)

      const outcome = yield* sender.send(push)

      expect(outcome._tag).toBe("Retryable")
      expect(outcome).not.toHaveProperty("retryAfterMs")
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports INVALID_ARGUMENT (400) as Failed", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(() => invalidArgument)
      const sender = yield* fcm(google.url)

      const outcome = yield* sender.send(push)

      expect(outcome._tag).toBe("Failed")
      expect((outcome as { reason: string }).reason).toContain("Request contains an invalid argument.")
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports 401 as Failed and drops the cached access token", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle((request, index) => (index === 0 ? unauthenticated : delivered(request)))
      const sender = yield* fcm(google.url)

      expect((yield* sender.send(push))._tag).toBe("Failed")
      expect(yield* sender.send(push)).toStrictEqual(PushOutcome.Delivered())
      expect(google.tokenRequests).toHaveLength(2)
      expect(google.sendRequests()[1]!.headers.authorization).toBe("Bearer ya29.access-2")
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports a rejected assertion as Failed without calling FCM", () =>
    Effect.gen(function* () {
      const google = yield* fakeGoogle(delivered)
      const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs8", format: "pem" })
        .toString()
      const sender = yield* fcm(google.url, otherKey)

      const outcome = yield* sender.send(push)

      expect(outcome._tag).toBe("Failed")
      expect((outcome as { reason: string }).reason).toContain("invalid_grant")
      expect(google.sendRequests()).toHaveLength(0)
    }).pipe(Effect.scoped, quiet)
  )

  it.live("reports an unreachable provider as Retryable", () =>
    Effect.gen(function* () {
      const sender = yield* fcm(yield* refusedUrl)

      const outcome = yield* sender.send(push)

      expect(outcome._tag).toBe("Retryable")
      expect((outcome as { reason: string }).reason).toMatch(/^FCM unreachable/)
    }).pipe(quiet)
  )

  it.effect("reads the service-account JSON and rejects an unusable key at construction", () =>
    Effect.gen(function* () {
      const json = JSON.stringify({ type: "service_account", client_email: clientEmail, private_key: privateKeyPem })
      expect(yield* FcmPush.parseServiceAccountJson(json)).toEqual({
        client_email: clientEmail,
        private_key: privateKeyPem
      })
      expect(yield* Effect.flip(FcmPush.parseServiceAccountJson("{not json"))).toBeInstanceOf(PushConfigError)

      const error = yield* Effect.flip(fcm("http://127.0.0.1:1", "not a key"))
      expect(error).toBeInstanceOf(PushConfigError)
      expect(error.provider).toBe("fcm")
    })
  )
})
