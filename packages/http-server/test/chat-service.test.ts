import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import type { SentMessage } from "@talab/contract"
import { Forbidden, Ids, NotFound, UserRepo } from "@talab/core"
import { Effect, Exit, Layer, TestClock } from "effect"
import { ChatService } from "../src/chat/Service.js"
import { RealtimeHub, type RealtimeHubService } from "../src/realtime/Hub.js"
import { pgliteInMemory, repositoriesOver } from "./db/support/databases.js"
import { aUser, seedOffer } from "./db/support/fixtures.js"
import { AttachedImagesForTests } from "./support/attached-images.js"

/** What the hub was asked: who is online (answered from `online`) and what was published. */
const hubRecorder = () => {
  const state = { online: false, published: [] as Array<SentMessage>, asked: [] as Array<string> }
  const hub: RealtimeHubService = {
    isOnline: (conversationId, userId) =>
      Effect.sync(() => {
        state.asked.push(`${conversationId}:${userId}`)
        return state.online
      }),
    publish: (_conversation, message) => Effect.sync(() => void state.published.push(message)),
    publishToUsers: () => Effect.void,
    attach: () => Effect.void,
    detach: () => Effect.void,
    bindSession: () => Effect.void,
    admit: () => Effect.void,
    subscribe: () => Effect.void,
    unsubscribe: () => Effect.void,
    endSession: () => Effect.void,
    userChanged: () => Effect.void,
    readsChanged: () => Effect.void
  }
  return { state, layer: Layer.succeed(RealtimeHub, hub) }
}

const hub = hubRecorder()
const TestLayer = ChatService.Default.pipe(
  Layer.provide(AttachedImagesForTests),
  Layer.provideMerge(repositoriesOver(pgliteInMemory)),
  Layer.provide(Ids.Random),
  Layer.provide(hub.layer)
)

const messageSentEvents = (messageId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ payload: Record<string, unknown>; createdAt: Date }>`
      SELECT payload, created_at AS "createdAt" FROM outbox_events
      WHERE type = 'MessageSent' AND payload ->> 'messageId' = ${messageId}`
  )

const NOW = Date.parse("2025-03-01T12:00:00.000Z")

describe("ChatService", () => {
  layer(TestLayer, { timeout: 60_000 })((it) => {
    it.effect(
      "stores each message of a conversation strictly after the previous one while the clock stands still",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const chat = yield* ChatService
          const { buyer, conversation, seller } = yield* seedOffer
          const one = yield* chat.sendMessage(buyer.id, conversation.id, { messageText: "one" })
          const two = yield* chat.sendMessage(seller.id, conversation.id, { messageText: "two" })
          const burst = yield* Effect.all(
            Array.from({ length: 6 }, (_, i) =>
              chat.sendMessage(buyer.id, conversation.id, { messageText: `burst ${i}` })
            ),
            { concurrency: "unbounded" }
          )
          const times = [one, two, ...burst].map((m) => m.createdAt.getTime())
          expect(times.slice(0, 2)).toEqual([NOW, NOW + 1])
          expect([...times].sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => NOW + i))
          // The seq follows the same storing order: 1..8, no gap, each once, in created_at order.
          const byTime = [one, two, ...burst].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
          expect(byTime.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])

          const page = yield* chat.readMessages(seller.id, conversation.id, { before: new Date(NOW + 2), limit: 10 })
          expect(page.messages.map((m) => m.messageText)).toEqual(["two", "one"])
        })
    )

    it.effect("appends MessageSent in the message's transaction, with whether the recipient was online", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW)
        const chat = yield* ChatService
        const { buyer, conversation, seller } = yield* seedOffer
        hub.state.online = false
        const offline = yield* chat.sendMessage(buyer.id, conversation.id, { messageText: "anyone there?" })
        hub.state.online = true
        const online = yield* chat.sendMessage(buyer.id, conversation.id, { messageText: "hello" })
        hub.state.online = false

        expect(hub.state.asked.slice(-2)).toEqual([
          `${conversation.id}:${seller.id}`,
          `${conversation.id}:${seller.id}`
        ])
        const [offlineEvent] = yield* messageSentEvents(offline.id)
        expect(offlineEvent?.payload).toEqual({
          messageId: offline.id,
          conversationId: conversation.id,
          senderId: buyer.id,
          recipientId: seller.id,
          recipientOnline: false
        })
        expect((yield* messageSentEvents(online.id))[0]?.payload.recipientOnline).toBe(true)
        expect(hub.state.published.slice(-2).map((m) => m.id)).toEqual([offline.id, online.id])
      })
    )

    it.effect("stores one message per client id: the retry answers it, appends and publishes nothing, acks again", () =>
      Effect.gen(function* () {
        const chat = yield* ChatService
        const { buyer, conversation } = yield* seedOffer
        const acked: Array<SentMessage> = []
        const clientId = `client-${conversation.id}`
        const options = { onStored: (m: SentMessage) => Effect.sync(() => void acked.push(m)) }
        const publishedBefore = hub.state.published.length
        const first = yield* chat.sendMessage(buyer.id, conversation.id, { messageText: "once", clientId }, options)
        const retry = yield* chat.sendMessage(
          buyer.id,
          conversation.id,
          { messageText: "once, again", clientId },
          options
        )
        expect(retry).toEqual(first)
        expect(acked).toEqual([first, first])
        expect(hub.state.published.length - publishedBefore).toBe(1)
        expect(yield* messageSentEvents(first.id)).toHaveLength(1)
        expect(first.seq).toBe(1) // the retry took no seq: the next message is 2
        expect((yield* chat.sendMessage(buyer.id, conversation.id, { messageText: "next" })).seq).toBe(2)
        const page = yield* chat.readMessages(buyer.id, conversation.id, { limit: 50 })
        expect(page.messages.map((m) => m.messageText)).toEqual(["next", "once"])
      })
    )

    it.effect("refuses outsiders and unknown conversations, storing and publishing nothing", () =>
      Effect.gen(function* () {
        const chat = yield* ChatService
        const { buyer, conversation } = yield* seedOffer
        const outsider = yield* (yield* UserRepo).insertOrGet(aUser())
        const publishedBefore = hub.state.published.length
        const failure = (effect: Effect.Effect<unknown, unknown>) =>
          Effect.map(Effect.exit(effect), (exit) =>
            Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : exit
          )

        expect(yield* failure(chat.sendMessage(outsider.id, conversation.id, { messageText: "hi" }))).toBeInstanceOf(
          Forbidden
        )
        expect(yield* failure(chat.sendMessage(buyer.id, crypto.randomUUID(), { messageText: "hi" }))).toBeInstanceOf(
          NotFound
        )
        expect(yield* failure(chat.readMessages(outsider.id, conversation.id, { limit: 10 }))).toBeInstanceOf(Forbidden)
        expect(hub.state.published.length).toBe(publishedBefore)
        expect((yield* chat.readMessages(buyer.id, conversation.id, { limit: 10 })).messages).toEqual([])
      })
    )
  })
})
