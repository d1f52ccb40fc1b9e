import { generateKeyPairSync } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { DomainEvent, PushSender } from "@talab/core"
import { Duration, Effect, Layer, TestClock } from "effect"
import { ApnsPush, FcmPush } from "../../src/adapters/push/index.js"
import { type DispatcherOptions, PushDispatcher } from "../../src/notifications/Dispatcher.js"
import { fakeApns } from "../adapters/support/fakeApns.js"
import { fakeFcm, unavailable, unregistered } from "../adapters/support/fakeFcm.js"
import type { FakeReply, RecordedRequest } from "../adapters/support/fakeHttpServer.js"
import { makeSelfSignedCert } from "../adapters/support/selfSignedCert.js"
import { deviceTokensOf, pgliteInMemory, repositoriesOver } from "../db/support/databases.js"
import { seedOffer } from "../db/support/fixtures.js"
import { clearQueue, commit, notificationsOf, onTestClock, registerDevice, speaks } from "./support/pushes.js"

const projectId = "talab-test"
const google = generateKeyPairSync("rsa", { modulusLength: 2048 })
const apple = generateKeyPairSync("ec", { namedCurve: "P-256" })
const tls = makeSelfSignedCert()
const pem = (key: typeof google.privateKey) => key.export({ type: "pkcs8", format: "pem" }).toString()

const fcmSender = (url: string) =>
  Layer.effect(
    PushSender,
    FcmPush.make({
      projectId,
      baseUrl: url,
      serviceAccount: {
        client_email: "talab-push@talab-test.iam.gserviceaccount.com",
        private_key: pem(google.privateKey),
        token_uri: `${url}/token`
      }
    })
  ).pipe(Layer.orDie)

const apnsSender = (origin: string) =>
  Layer.scoped(
    PushSender,
    ApnsPush.make({
      keyId: "ABC123DEFG",
      teamId: "DEF123GHIJ",
      bundleId: "sa.talab.app",
      privateKey: pem(apple.privateKey),
      origin,
      tls: { ca: tls.cert }
    })
  ).pipe(Layer.orDie)

const drainThrough = (sender: Layer.Layer<PushSender>, options: Partial<DispatcherOptions> = {}) =>
  Effect.flatMap(PushDispatcher, (dispatcher) => dispatcher.drain).pipe(
    Effect.provide(PushDispatcher.Test(options).pipe(Layer.provide(sender)))
  )

const seededOfferCreated = Effect.gen(function* () {
  const seeded = yield* seedOffer
  const event = DomainEvent.OfferCreated({
    offerId: seeded.offer.id,
    requestId: seeded.request.id,
    sellerId: seeded.seller.id,
    buyerId: seeded.buyer.id,
    conversationId: seeded.conversation.id
  })
  return { ...seeded, event }
})

const tokensOf = (userId: string) =>
  Effect.map(deviceTokensOf(userId), (devices) => devices.map((device) => device.pushToken))

const delivered = (request: RecordedRequest): FakeReply => ({
  status: 200,
  body: { name: `projects/${projectId}/messages/${request.body.length}` }
})

layer(repositoriesOver(pgliteInMemory), { timeout: Duration.minutes(2), excludeTestServices: true })(
  "push dispatcher through the real provider adapters",
  (it) => {
    const test = (title: string, body: () => Effect.Effect<void, unknown, any>) =>
      it.effect(title, () => onTestClock(Effect.scoped(Effect.zipRight(clearQueue, Effect.suspend(body)))))

    test("FCM: delivers the worded push with its ids to an Android device", () =>
      Effect.gen(function* () {
        const fcm = yield* fakeFcm({ projectId, publicKey: google.publicKey, onSend: delivered })
        const seeded = yield* seededOfferCreated
        yield* speaks(seeded.buyer, "en")
        yield* registerDevice(seeded.buyer.id, "android", "fcm-token-1")

        yield* commit(seeded.event)
        yield* drainThrough(fcmSender(fcm.url))

        expect(fcm.sendRequests().map((request) => JSON.parse(request.body))).toEqual([
          {
            message: {
              token: "fcm-token-1",
              notification: {
                title: "New offer on your request",
                body: "Offer from Riyadh Phones: Apple iPhone 15 for 2,100.25"
              },
              data: {
                request_id: seeded.request.id,
                offer_id: seeded.offer.id,
                conversation_id: seeded.conversation.id,
                type: "offer_created"
              }
            }
          }
        ])
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("FCM: a token FCM reports UNREGISTERED is deleted", () =>
      Effect.gen(function* () {
        const fcm = yield* fakeFcm({ projectId, publicKey: google.publicKey, onSend: () => unregistered })
        const seeded = yield* seededOfferCreated
        yield* registerDevice(seeded.buyer.id, "android", "fcm-gone")

        yield* commit(seeded.event)
        yield* drainThrough(fcmSender(fcm.url))

        expect(fcm.sendRequests()).toHaveLength(1)
        expect(yield* tokensOf(seeded.buyer.id)).toEqual([])
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("FCM: a 503 with Retry-After is retried after it, then delivered", () =>
      Effect.gen(function* () {
        const fcm = yield* fakeFcm({
          projectId,
          publicKey: google.publicKey,
          onSend: (request, index) => (index === 0 ? unavailable : delivered(request))
        })
        const seeded = yield* seededOfferCreated
        yield* registerDevice(seeded.buyer.id, "android", "fcm-busy")
        const sender = fcmSender(fcm.url)

        yield* commit(seeded.event)
        yield* drainThrough(sender)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "pending", attempts: 1 })
        ])
        yield* TestClock.adjust(Duration.seconds(29))
        yield* drainThrough(sender)
        expect(fcm.sendRequests()).toHaveLength(1)

        yield* TestClock.adjust(Duration.seconds(1))
        yield* drainThrough(sender)
        expect(fcm.sendRequests()).toHaveLength(2)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "sent", attempts: 2 })
        ])
      }))

    test("APNs: delivers the worded push with its ids to an iOS device", () =>
      Effect.gen(function* () {
        const apns = yield* fakeApns(tls, () => ({ status: 200 }))
        const seeded = yield* seededOfferCreated
        yield* registerDevice(seeded.buyer.id, "ios", "apns-token-1")

        yield* commit(seeded.event)
        yield* drainThrough(apnsSender(apns.origin))

        expect(apns.requests).toHaveLength(1)
        expect(apns.requests[0]!.headers[":path"]).toBe("/3/device/apns-token-1")
        expect(JSON.parse(apns.requests[0]!.body)).toEqual({
          aps: {
            alert: { title: "عرض جديد على طلبك", body: "عرض من Riyadh Phones: Apple iPhone 15 بسعر 2,100.25" },
            sound: "default"
          },
          request_id: seeded.request.id,
          offer_id: seeded.offer.id,
          conversation_id: seeded.conversation.id,
          type: "offer_created"
        })
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("APNs: a token answered 410 Unregistered is deleted", () =>
      Effect.gen(function* () {
        const apns = yield* fakeApns(tls, (request) =>
          request.headers[":path"] === "/3/device/apns-gone"
            ? { status: 410, body: { reason: "Unregistered", timestamp: 0 } }
            : { status: 200 }
        )
        const seeded = yield* seededOfferCreated
        yield* registerDevice(seeded.buyer.id, "ios", "apns-gone")
        yield* registerDevice(seeded.buyer.id, "android", "other-device")

        yield* commit(seeded.event)
        yield* drainThrough(apnsSender(apns.origin))

        expect(apns.requests).toHaveLength(2)
        expect(yield* tokensOf(seeded.buyer.id)).toEqual(["other-device"])
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("APNs: 429 TooManyRequests is retried with backoff, then delivered", () =>
      Effect.gen(function* () {
        const apns = yield* fakeApns(tls, (_, index) =>
          index === 0 ? { status: 429, body: { reason: "TooManyRequests" } } : { status: 200 }
        )
        const seeded = yield* seededOfferCreated
        yield* registerDevice(seeded.buyer.id, "ios", "apns-busy")
        const sender = apnsSender(apns.origin)

        yield* commit(seeded.event)
        yield* drainThrough(sender)
        expect(apns.requests).toHaveLength(1)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "pending", lastError: "APNs answered HTTP 429 TooManyRequests" })
        ])

        yield* TestClock.adjust(Duration.seconds(2))
        yield* drainThrough(sender)
        expect(apns.requests).toHaveLength(2)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))
  }
)
