import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { DomainEvent, EventOutbox, MessageRepo, PushOutcome, Transactor, UserRepo } from "@talab/core"
import { Duration, Effect, Layer, TestClock } from "effect"
import { type DispatcherOptions, PushDispatcher } from "../../src/notifications/Dispatcher.js"
import { NotificationStore, Settlement } from "../../src/notifications/NotificationStore.js"
import { deviceTokensOf, repositoriesOver } from "../db/support/databases.js"
import { aMessage, seedDeal, seedOffer } from "../db/support/fixtures.js"
import { statementsSentBy } from "../support/statements-sent.js"
import {
  clearQueue,
  commit,
  notificationsOf,
  now,
  onTestClock,
  registerDevice,
  type ScriptedPush,
  scriptedPush,
  speaks,
  T0
} from "./support/pushes.js"

/** A dispatcher of its own (as another server instance would have) over the suite's database. */
const dispatcherOver = (pushes: ScriptedPush, options: Partial<DispatcherOptions> = {}) =>
  PushDispatcher.pipe(Effect.provide(PushDispatcher.Test(options).pipe(Layer.provide(pushes.layer))))

const drainWith = (pushes: ScriptedPush, options: Partial<DispatcherOptions> = {}) =>
  Effect.flatMap(dispatcherOver(pushes, options), (dispatcher) => dispatcher.drain)

const offerCreated = (seeded: Effect.Effect.Success<typeof seedOffer>) =>
  DomainEvent.OfferCreated({
    offerId: seeded.offer.id,
    requestId: seeded.request.id,
    sellerId: seeded.seller.id,
    buyerId: seeded.buyer.id,
    conversationId: seeded.conversation.id
  })

/**
 * What the push dispatcher must do, against one database shared by the suite. Each test starts with an empty
 * queue and runs on the test clock.
 */
export const dispatcherContract = <E>(
  name: string,
  database: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, E>
) =>
  layer(repositoriesOver(database), { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    const test = (title: string, body: () => Effect.Effect<void, unknown, any>) =>
      it.effect(title, () => onTestClock(Effect.zipRight(clearQueue, Effect.suspend(body))))

    test("delivers offer_created to every device of the buyer, worded in Arabic, with the ids as data", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "buyer-android")
        yield* registerDevice(seeded.buyer.id, "ios", "buyer-ios")
        yield* registerDevice(seeded.seller.id, "android", "seller-android")
        const pushes = scriptedPush()

        yield* commit(offerCreated(seeded))
        const report = yield* drainWith(pushes)

        expect(report.attempted).toBe(1)
        expect(pushes.calls.map((call) => call.pushToken).sort()).toEqual(["buyer-android", "buyer-ios"])
        for (const call of pushes.calls) {
          expect(call).toMatchObject({
            userId: seeded.buyer.id,
            type: "offer_created",
            title: "عرض جديد على طلبك",
            body: "عرض من Riyadh Phones: Apple iPhone 15 بسعر 2,100.25",
            data: {
              request_id: seeded.request.id,
              offer_id: seeded.offer.id,
              conversation_id: seeded.conversation.id
            }
          })
        }
        expect(pushes.calls.map((call) => call.platform).sort()).toEqual(["android", "ios"])
        const [row] = yield* notificationsOf(seeded.buyer.id)
        expect(row).toMatchObject({ status: "sent", attempts: 1, sentAt: new Date(T0), lastError: null })
        expect(row!.deviceOutcomes).toEqual({ "buyer-android": "delivered", "buyer-ios": "delivered" })
        expect(yield* notificationsOf(seeded.seller.id)).toEqual([])

        expect((yield* drainWith(pushes)).attempted).toBe(0)
        expect(pushes.calls).toHaveLength(2)
      }))

    test("reads what a push is about only for recipients it can reach, and settles the others all the same", () =>
      Effect.gen(function* () {
        const unreachable = yield* seedOffer
        const reachable = yield* seedOffer
        const pushes = scriptedPush()
        /** The statements of a drain that read an offer's facts (Content.ts's offerRows). */
        const factReadsOfADrain = Effect.map(statementsSentBy(drainWith(pushes)), ({ result, statements }) => ({
          report: result,
          factReads: statements.filter((text) => text.includes('AS "offerId"')).length
        }))

        yield* commit(offerCreated(unreachable))
        const alone = yield* factReadsOfADrain
        expect(alone).toMatchObject({ report: { attempted: 1 }, factReads: 0 })
        expect(pushes.calls).toEqual([])
        expect(yield* notificationsOf(unreachable.buyer.id)).toMatchObject([{ status: "sent", attempts: 1 }])

        yield* registerDevice(reachable.buyer.id, "android", "reachable-android")
        // Another offer for the unreachable buyer: a second push about the same one within the hour is collapsed.
        const unreachableAgain = yield* seedOffer
        yield* commit(offerCreated(unreachableAgain), offerCreated(reachable))
        const mixed = yield* factReadsOfADrain
        expect(mixed).toMatchObject({ report: { attempted: 2 }, factReads: 1 })
        expect(pushes.calls).toHaveLength(1)
        expect(pushes.calls[0]).toMatchObject({
          userId: reachable.buyer.id,
          body: "عرض من Riyadh Phones: Apple iPhone 15 بسعر 2,100.25"
        })
      }))

    test("words the push in English for a recipient who chose English", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* speaks(seeded.buyer, "en")
        yield* registerDevice(seeded.buyer.id, "web")
        const pushes = scriptedPush()

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes)

        expect(pushes.calls).toHaveLength(1)
        expect(pushes.calls[0]).toMatchObject({
          title: "New offer on your request",
          body: "Offer from Riyadh Phones: Apple iPhone 15 for 2,100.25"
        })
      }))

    test("delivers offer_accepted to buyer and seller, each in their own language and from their side", () =>
      Effect.gen(function* () {
        const seeded = yield* seedDeal()
        yield* speaks(seeded.seller, "en")
        yield* (yield* UserRepo).updateProfile(seeded.buyer.id, { name: "Sara" })
        yield* registerDevice(seeded.buyer.id, "ios")
        yield* registerDevice(seeded.seller.id, "android")
        const pushes = scriptedPush()

        yield* commit(
          DomainEvent.OfferAccepted({
            offerId: seeded.offer.id,
            requestId: seeded.request.id,
            sellerId: seeded.seller.id,
            buyerId: seeded.buyer.id,
            dealId: seeded.deal.id
          })
        )
        yield* drainWith(pushes)

        const data = { request_id: seeded.request.id, offer_id: seeded.offer.id, deal_id: seeded.deal.id }
        expect(pushes.to(seeded.buyer.id)).toEqual([
          expect.objectContaining({
            type: "offer_accepted",
            title: "تم تأكيد الصفقة",
            body: "قبلت عرض Riyadh Phones: Apple iPhone 15 بسعر 2,100.25",
            data
          })
        ])
        expect(pushes.to(seeded.seller.id)).toEqual([
          expect.objectContaining({
            type: "offer_accepted",
            title: "Your offer was accepted",
            body: "Your offer for Apple iPhone 15 at 2,100.25 was accepted by Sara",
            data
          })
        ])
      }))

    test("pushes a message to an offline recipient, quoting it; an online recipient gets no push", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android")
        const messages = yield* MessageRepo
        const offline = aMessage(seeded.conversation, seeded.seller.id, { messageText: "Still available, come by" })
        const online = aMessage(seeded.conversation, seeded.seller.id, { messageText: "Seen?" })
        yield* messages.insertOnce(offline)
        yield* messages.insertOnce(online)
        const pushes = scriptedPush()

        const sent = (messageId: string, recipientOnline: boolean) =>
          DomainEvent.MessageSent({
            messageId,
            conversationId: seeded.conversation.id,
            senderId: seeded.seller.id,
            recipientId: seeded.buyer.id,
            recipientOnline
          })
        yield* commit(sent(offline.id, false), sent(online.id, true))
        yield* drainWith(pushes)

        expect(pushes.calls).toEqual([
          expect.objectContaining({
            userId: seeded.buyer.id,
            type: "message",
            title: "رسالة جديدة من Riyadh Phones",
            body: "Still available, come by",
            data: { conversation_id: seeded.conversation.id }
          })
        ])
        expect(yield* notificationsOf(seeded.buyer.id)).toHaveLength(1)
      }))

    test("prompts the buyer, and only the buyer, to rate a completed deal", () =>
      Effect.gen(function* () {
        const seeded = yield* seedDeal()
        yield* speaks(seeded.buyer, "en")
        yield* registerDevice(seeded.buyer.id, "ios")
        yield* registerDevice(seeded.seller.id, "ios")
        const pushes = scriptedPush()

        yield* commit(
          DomainEvent.DealCompleted({ dealId: seeded.deal.id, buyerId: seeded.buyer.id, sellerId: seeded.seller.id })
        )
        yield* drainWith(pushes)

        expect(pushes.calls).toEqual([
          expect.objectContaining({
            userId: seeded.buyer.id,
            type: "rating_prompt",
            title: "How was your deal?",
            body: "Rate Riyadh Phones for Apple iPhone 15",
            data: { deal_id: seeded.deal.id }
          })
        ])
      }))

    test("queues the notifications in the caller's transaction: a rollback leaves none", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        const transactor = yield* Transactor
        const outbox = yield* EventOutbox

        const rolledBack = yield* transactor
          .transaction(Effect.zipRight(outbox.append([offerCreated(seeded)], yield* now), Effect.fail("boom")))
          .pipe(Effect.flip)
        expect(rolledBack).toBe("boom")
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([])

        yield* commit(offerCreated(seeded))
        const [row] = yield* notificationsOf(seeded.buyer.id)
        expect(row).toMatchObject({
          type: "offer_created",
          status: "pending",
          attempts: 0,
          nextAttemptAt: new Date(T0)
        })
      }))

    test("marks a notification for a user without devices sent, and does not push it to a device added later", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        const pushes = scriptedPush()

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])

        yield* registerDevice(seeded.buyer.id, "android")
        yield* TestClock.adjust(Duration.hours(1))
        yield* drainWith(pushes)
        expect(pushes.calls).toEqual([])
      }))

    test("deletes a token the provider reports unregistered and still delivers to the others", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "stale-token")
        yield* registerDevice(seeded.buyer.id, "ios", "live-token")
        const pushes = scriptedPush()
        pushes.script("stale-token", PushOutcome.Unregistered())

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes)

        const remaining = yield* deviceTokensOf(seeded.buyer.id)
        expect(remaining.map((device) => device.pushToken)).toEqual(["live-token"])
        const [row] = yield* notificationsOf(seeded.buyer.id)
        expect(row).toMatchObject({ status: "sent" })
        expect(row!.deviceOutcomes).toEqual({ "stale-token": "unregistered", "live-token": "delivered" })
      }))

    test("retries a transient failure later with exponential backoff, then delivers", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "flaky")
        const pushes = scriptedPush()
        pushes.script(
          "flaky",
          PushOutcome.Retryable({ reason: "503 from provider" }),
          PushOutcome.Retryable({ reason: "503 again" })
        )
        const options = { backoff: { base: Duration.seconds(2), max: Duration.minutes(10) } }

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes, options)
        const [first] = yield* notificationsOf(seeded.buyer.id)
        expect(first).toMatchObject({ status: "pending", attempts: 1, lastError: "503 from provider" })
        // Equal jitter: between half and all of base × 2^(attempts − 1).
        const firstDelay = first!.nextAttemptAt.getTime() - T0
        expect(firstDelay).toBeGreaterThanOrEqual(1_000)
        expect(firstDelay).toBeLessThanOrEqual(2_000)

        yield* drainWith(pushes, options)
        expect(pushes.calls).toHaveLength(1)

        yield* TestClock.adjust(Duration.seconds(2))
        yield* drainWith(pushes, options)
        const [second] = yield* notificationsOf(seeded.buyer.id)
        expect(second).toMatchObject({ status: "pending", attempts: 2 })
        const secondDelay = second!.nextAttemptAt.getTime() - (T0 + 2_000)
        expect(secondDelay).toBeGreaterThanOrEqual(2_000)
        expect(secondDelay).toBeLessThanOrEqual(4_000)

        yield* TestClock.adjust(Duration.seconds(4))
        yield* drainWith(pushes, options)
        expect(pushes.calls.map((call) => call.outcome)).toEqual(["Retryable", "Retryable", "Delivered"])
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "sent", attempts: 3, sentAt: new Date(T0 + 6_000) })
        ])
      }))

    test("waits at least as long as the provider's Retry-After", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "ios", "throttled")
        const pushes = scriptedPush()
        pushes.script("throttled", PushOutcome.Retryable({ reason: "429", retryAfterMs: 30_000 }))

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes)
        yield* TestClock.adjust(Duration.seconds(29))
        yield* drainWith(pushes)
        expect(pushes.calls).toHaveLength(1)

        yield* TestClock.adjust(Duration.seconds(1))
        yield* drainWith(pushes)
        expect(pushes.calls.map((call) => call.outcome)).toEqual(["Retryable", "Delivered"])
      }))

    test("a retry pushes again only to the devices that failed transiently", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "steady")
        yield* registerDevice(seeded.buyer.id, "ios", "flaky")
        const pushes = scriptedPush()
        pushes.script("flaky", PushOutcome.Retryable({ reason: "timeout" }))

        yield* commit(offerCreated(seeded))
        yield* drainWith(pushes)
        yield* TestClock.adjust(Duration.minutes(1))
        yield* drainWith(pushes)

        const outcomesOf = (token: string) =>
          pushes.calls.filter((call) => call.pushToken === token).map((call) => call.outcome)
        expect(outcomesOf("steady")).toEqual(["Delivered"])
        expect(outcomesOf("flaky")).toEqual(["Retryable", "Delivered"])
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("does not retry a permanent failure, and it does not hold back the other devices", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        const other = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "rejected")
        yield* registerDevice(other.buyer.id, "android", "rejected-too")
        yield* registerDevice(other.buyer.id, "ios", "fine")
        const pushes = scriptedPush()
        pushes.script("rejected", PushOutcome.Failed({ reason: "400 INVALID_ARGUMENT" }))
        pushes.script("rejected-too", PushOutcome.Failed({ reason: "400 INVALID_ARGUMENT" }))

        yield* commit(offerCreated(seeded), offerCreated(other))
        yield* drainWith(pushes)
        yield* TestClock.adjust(Duration.hours(1))
        yield* drainWith(pushes)

        expect(pushes.to(seeded.buyer.id)).toHaveLength(1)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "failed", attempts: 1, lastError: "400 INVALID_ARGUMENT", sentAt: null })
        ])
        expect(
          pushes
            .to(other.buyer.id)
            .map((call) => [call.pushToken, call.outcome])
            .sort()
        ).toEqual([
          ["fine", "Delivered"],
          ["rejected-too", "Failed"]
        ])
        expect(yield* notificationsOf(other.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("gives up after the maximum number of attempts", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android", "down")
        const pushes = scriptedPush()
        const down = PushOutcome.Retryable({ reason: "503" })
        pushes.script("down", down, down, down, down)

        yield* commit(offerCreated(seeded))
        for (let round = 0; round < 5; round++) {
          yield* drainWith(pushes, { maxAttempts: 3 })
          yield* TestClock.adjust(Duration.minutes(10))
        }

        expect(pushes.calls).toHaveLength(3)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "failed", attempts: 3, lastError: "503" })
        ])
      }))

    test("drains more notifications than fit in one batch", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android")
        const pushes = scriptedPush()

        yield* commit(...Array.from({ length: 23 }, () => offerCreated(seeded)))
        const report = yield* drainWith(pushes, { batchSize: 5 })

        expect(report.attempted).toBe(23)
        expect(pushes.calls).toHaveLength(23)
      }))

    test("after a crash between commit and delivery, a dispatcher started later delivers", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android")
        const restarted = scriptedPush()

        // Committed while no dispatcher ran: the process "died" before delivering.
        yield* commit(offerCreated(seeded))
        yield* TestClock.adjust(Duration.minutes(5))
        yield* drainWith(restarted)

        expect(restarted.to(seeded.buyer.id)).toHaveLength(1)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))

    test("a claim of a dispatcher that died is delivered by another once its lease ends, and only once", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        yield* registerDevice(seeded.buyer.id, "android")
        const survivor = scriptedPush()
        const store = yield* NotificationStore.pipe(Effect.provide(NotificationStore.Default))

        yield* commit(offerCreated(seeded))
        const start = yield* now
        const [claimed] = yield* store.claimDue({
          now: start,
          leaseUntil: new Date(start.getTime() + 60_000),
          limit: 10
        })
        expect(claimed).toBeDefined()

        yield* drainWith(survivor)
        expect(survivor.calls).toEqual([])

        yield* TestClock.adjust(Duration.seconds(60))
        yield* drainWith(survivor)
        expect(survivor.to(seeded.buyer.id)).toHaveLength(1)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "sent", attempts: 2 })
        ])

        // The dead dispatcher's claim is stale: its late report changes nothing.
        const late = yield* store.settle(claimed!, Settlement.Failed({ deviceOutcomes: {}, error: "late" }), yield* now)
        expect(late).toBe(false)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
        yield* drainWith(survivor)
        expect(survivor.calls).toHaveLength(1)
      }))

    test("a late report of an expired claim does not overwrite the claim that took over", () =>
      Effect.gen(function* () {
        const seeded = yield* seedOffer
        const store = yield* NotificationStore.pipe(Effect.provide(NotificationStore.Default))
        const claim = Effect.flatMap(now, (at) =>
          store.claimDue({ now: at, leaseUntil: new Date(at.getTime() + 60_000), limit: 10 })
        )

        yield* commit(offerCreated(seeded))
        const [slow] = yield* claim
        yield* TestClock.adjust(Duration.seconds(60))
        const [successor] = yield* claim
        expect(successor).toMatchObject({ id: slow!.id, attempts: 2 })

        expect(yield* store.settle(slow!, Settlement.Sent({ deviceOutcomes: {} }), yield* now)).toBe(false)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([
          expect.objectContaining({ status: "pending", attempts: 2 })
        ])
        expect(yield* store.settle(successor!, Settlement.Sent({ deviceOutcomes: {} }), yield* now)).toBe(true)
        expect(yield* notificationsOf(seeded.buyer.id)).toEqual([expect.objectContaining({ status: "sent" })])
      }))
  })
