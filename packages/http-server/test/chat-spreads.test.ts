import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { type ChatLine, Ids, neighboursOf, SPREAD_SEQS } from "@talab/core"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { ChatQueries, spreadKey } from "../src/chat/Queries.js"
import { aroundIn } from "../src/chat/Views.js"
import { pgliteInMemory, repositoriesOver } from "./db/support/databases.js"
import { seedOffer } from "./db/support/fixtures.js"
import { AttachedImagesForTests } from "./support/attached-images.js"

const TestLayer = ChatQueries.Default.pipe(
  Layer.provide(AttachedImagesForTests),
  Layer.provideMerge(repositoriesOver(pgliteInMemory)),
  Layer.provide(Ids.Random)
)

const START = Date.parse("2025-03-01T12:00:00.000Z")

/** A conversation's messages: who sent each, and how many minutes after the one before it. */
const conversationArbitrary = fc.array(
  fc.record({ byBuyer: fc.boolean(), minutesLater: fc.constantFrom(0, 0, 1, 3, 9, 10, 11, 30) }),
  { minLength: 1, maxLength: 120 }
)

/** The rule, read off the whole conversation: neighboursOf over the messages within SPREAD_SEQS of the asked one. */
const expectedSpread = (lines: ReadonlyArray<ChatLine>, seq: number) => {
  const window = lines.filter((line) => Math.abs(line.seq - seq) <= SPREAD_SEQS)
  return neighboursOf(
    window,
    window.findIndex((line) => line.seq === seq)
  )
}

describe("ChatQueries spreads", () => {
  layer(TestLayer, { timeout: 120_000 })((it) => {
    it.effect("each message's spread read in one statement is the one the rule picks from its whole conversation", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queries = yield* ChatQueries
        const conversations = fc.sample(conversationArbitrary, { seed: 20261129, numRuns: 12 })
        for (const messages of conversations) {
          const { buyer, conversation, seller } = yield* seedOffer
          let at = START
          const lines: Array<ChatLine> = messages.map(({ byBuyer, minutesLater }, i) => {
            at += minutesLater * 60_000 + 1
            return {
              seq: i + 1,
              senderId: byBuyer ? buyer.id : seller.id,
              messageText: `${i + 1}`,
              createdAt: new Date(at)
            }
          })
          yield* sql`INSERT INTO messages ${sql.insert(
            lines.map((line) => ({
              id: crypto.randomUUID(),
              conversation_id: conversation.id,
              sender_id: line.senderId,
              message_text: line.messageText,
              created_at: line.createdAt,
              seq: line.seq
            }))
          )}`
          const asked = lines.map(({ seq }) => ({ conversationId: conversation.id, seq }))
          const spreads = yield* queries.spreadsAround(asked)
          for (const { seq } of lines) {
            expect(spreads.get(spreadKey(conversation.id, seq))).toEqual(expectedSpread(lines, seq))
          }
          // One asked alone reads the same as asked with the rest.
          const last = lines.at(-1)!.seq
          expect(yield* queries.spreadAround(conversation.id, last)).toEqual(expectedSpread(lines, last))
        }
      })
    )

    it.effect("a message not stored has no spread", () =>
      Effect.gen(function* () {
        const queries = yield* ChatQueries
        const { conversation } = yield* seedOffer
        expect(yield* queries.spreadAround(conversation.id, 7)).toEqual({ before: [], after: [] })
      })
    )
  })
})

describe("aroundIn", () => {
  const line = (seq: number, minute = seq): ChatLine => ({
    seq,
    senderId: "sender",
    messageText: `${seq}`,
    createdAt: new Date(START + minute * 1_000)
  })

  it("reads no message further than SPREAD_SEQS from the one asked, however many lines it is given", () => {
    const lines = [line(1), line(2), line(3 + SPREAD_SEQS), line(4 + SPREAD_SEQS), line(5 + 2 * SPREAD_SEQS)]
    expect(aroundIn(lines, 3 + SPREAD_SEQS)).toEqual({ before: [], after: [`${4 + SPREAD_SEQS}`] })
    expect(aroundIn(lines, 2)).toEqual({ before: ["1"], after: [] })
  })
})
