import { SqlClient, SqlSchema } from "@effect/sql"
import {
  asConversationParty,
  Chat,
  type ChatLine,
  Conversation,
  contactsShownAt,
  DomainEvent,
  EventOutbox,
  hasAttachments,
  Ids,
  type LockedConversation,
  Message,
  type MessageInput,
  OfferStatus,
  otherParty,
  type RecipientPresence,
  requireContent,
  requireMayWrite,
  SellerProfile,
  type StoredMessage,
  snakeCaseKeys,
  Transactor
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Str from "effect/String"
import { withWaitingWrites } from "../db/DeferredWrites.js"
import { textArrayLiteral } from "../db/PgArrays.js"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { makeWriteBatches, WRITE_BATCH_LIMITS } from "../db/WriteBatches.js"
import { sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { nearestOfSender, spreadKey } from "./Queries.js"
import { answersAsk, MessageRow, StoredRow } from "./SqlMessageRepo.js"
import { type Around, aroundIn } from "./Views.js"

type SendError = Effect.Effect.Error<ReturnType<Chat["send"]>>

/** A message stored, with the spread its live delivery masks it with when the batch read it. */
export type BatchedMessage = StoredMessage & { readonly around?: Around | undefined }

/** One caller's message waiting for its batch. */
interface Pending {
  readonly senderId: string
  readonly conversationId: string
  readonly input: MessageInput
}

const LockedRow = Schema.Struct({
  ...snakeCaseKeys(Conversation.fields).fields,
  ...snakeCaseKeys({ offerStatus: OfferStatus }).fields
})

/** The seller's profile beside its conversation's columns, as `sellerProfile.<field>` (gathered by `nested`). */
const sellerProfileColumns = columnsAs("p", fieldNames(SellerProfile), "sellerProfile")

/** What a repeated send has in common with the first: its sender and its `client_id`. */
const repeatKey = (senderId: string, clientId: string | null | undefined) => `${senderId}\n${clientId}`

/** The sends that name a `client_id`. */
const keyed = <S extends { readonly clientId?: string | undefined }>(sends: ReadonlyArray<S>) =>
  sends.flatMap((send) => (send.clientId === undefined ? [] : [{ ...send, clientId: send.clientId }]))

/** A message stored before with one of the batch's `client_id`s, built by json_agg: its times are ISO strings. */
const RepeatedRow = Schema.Struct({
  ...MessageRow.fields,
  ...snakeCaseKeys({ readAt: Schema.NullOr(Schema.Date), createdAt: Schema.Date }).fields
})

const LockedWithSellerRow = Schema.Struct({
  ...LockedRow.fields,
  sellerProfile: Schema.NullOr(SellerProfile),
  // The same on every row: decoded once, from the first (`repeatedOf`).
  repeated: Schema.Unknown
})

const repeatedOf = Schema.decodeUnknown(Schema.Array(RepeatedRow))

/** A stored row, whether it answered a buyer's question, and its sender's messages before the batch near it. */
const InsertedRow = Schema.Struct({
  ...StoredRow.fields,
  // Built by json_agg: its times are ISO strings.
  earlier: Schema.Array(
    Schema.Struct({ ...Message.pick("seq", "senderId", "messageText").fields, createdAt: Schema.Date })
  )
})
type Inserted = typeof InsertedRow.Type

const messageOf = ({ answersAsk: _answersAsk, earlier: _earlier, ...message }: Inserted) => message

/** The spread of each message of the batch, from the batch's rows of its conversation and those read before it. */
const spreadsOf = (rows: ReadonlyArray<Inserted>): ReadonlyMap<string, Around> => {
  const lines = new Map<string, Map<number, ChatLine>>()
  for (const row of rows) {
    const known = lines.get(row.conversationId) ?? new Map<number, ChatLine>()
    lines.set(row.conversationId, known)
    known.set(row.seq, row)
    for (const line of row.earlier) known.set(line.seq, line)
  }
  const inOrder = new Map(
    [...lines].map(([conversationId, bySeq]) => [conversationId, [...bySeq.values()].sort((a, b) => a.seq - b.seq)])
  )
  return new Map(
    rows.map((row) => [spreadKey(row.conversationId, row.seq), aroundIn(inOrder.get(row.conversationId)!, row.seq)])
  )
}

/** The batch could not be stored as one statement (a row the database refused, a repeat that raced): one by one. */
class BatchFallback {
  readonly _tag = "BatchFallback"
}

/**
 * Concurrent sends gathered into one transaction: the messages that arrive within one turn of the event loop
 * (well under a millisecond), or while the batch before them is written, up to `WRITE_BATCH_LIMITS.maxBatch`, are
 * checked each on its own (party, the suspended seller's rule: a refused one gets its own error and leaves the
 * rest), then stored with one INSERT, their conversations' last activity moved in the same statement, and their
 * `MessageSent` events and owed pushes appended to the outbox in the same transaction. Each conversation's rows
 * are locked in id order (sellers' profiles, shared, first: the ports' lock order), so each message's seq is
 * the conversation's next, in the order the messages came, without gaps. A repeated `client_id` answers the
 * first message, also within one batch. Whatever the database refuses in the batch statement (or a repeat
 * that raced it) rolls the batch back and sends its messages one by one through core's `Chat.send`, so a bad
 * message fails alone. A lone text message is a batch of one; a message with attachments goes through
 * `Chat.send` (they are attached in its transaction, which rolls the message back when one is refused).
 */
export const makeMessageBatcher = (presence: RecipientPresence) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const chat = yield* Chat
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const reads = yield* makeReadsChanged

    /*
     * One statement, two locks in the ports' lock order. First the profiles of the senders who are their
     * conversation's seller, shared, in user id order: the one-time filter counts them all before the scan of
     * the conversations begins (a conversation's seller never changes, so no lock is needed to tell who that is).
     * Then the conversations, in id order, each with its seller's profile when the batch locked it, and (on every
     * row, read once) the messages stored before with one of the batch's `client_id`s.
     */
    const lockConversationsAndSellers = SqlSchema.findAll({
      Request: Schema.Array(
        Schema.Struct({
          conversationId: Schema.String,
          senderId: Schema.String,
          clientId: Schema.optional(Schema.String)
        })
      ),
      Result: LockedWithSellerRow,
      execute: (sent) => {
        const keys = keyed(sent)
        return sql`
      WITH sellers AS MATERIALIZED (
        SELECT p.* FROM seller_profiles p
        WHERE p.user_id IN (
          SELECT c.seller_id FROM conversations c
          JOIN unnest(${textArrayLiteral(sent.map((s) => s.conversationId))}::uuid[],
                      ${textArrayLiteral(sent.map((s) => s.senderId))}::uuid[])
            AS sent (conversation_id, sender_id) ON c.id = sent.conversation_id AND c.seller_id = sent.sender_id)
        ORDER BY p.user_id FOR SHARE OF p)
      SELECT c.*, o.status AS offer_status, ${sql.literal(sellerProfileColumns)},
        (SELECT COALESCE(json_agg(m), '[]'::json) FROM messages m
         JOIN unnest(${textArrayLiteral(keys.map((s) => s.senderId))}::uuid[],
                     ${textArrayLiteral(keys.map((s) => s.clientId))}::text[])
           AS k (sender_id, client_id) ON m.sender_id = k.sender_id AND m.client_id = k.client_id
         -- Implied by the join, but stated so the planner can use the partial unique index on (sender_id, client_id).
         WHERE m.client_id IS NOT NULL) AS repeated
      FROM conversations c JOIN offers o ON o.id = c.offer_id
      LEFT JOIN sellers p ON p.user_id = c.seller_id
      WHERE c.id = ANY(${textArrayLiteral([...new Set(sent.map((s) => s.conversationId))])}::uuid[])
        AND (SELECT count(*) FROM sellers) >= 0
      ORDER BY c.id FOR UPDATE OF c`.pipe(Effect.map((rows) => rows.map(nested)))
      }
    })
    interface NewMessage {
      readonly id: string
      readonly conversationId: string
      readonly senderId: string
      readonly messageText: string
      readonly clientId: string | null
      readonly createdAt: Date
      /** Its place among the batch's messages of its conversation, from 1. */
      readonly nth: number
    }
    /*
     * One statement: the rows, each seq the conversation's last (as the locks hold it) plus its place in the
     * batch, and the conversations' last activity. A repeat that raced the check is skipped by the conflict
     * clause and shows as a row missing from the answer. Each row comes back with its sender's messages from
     * before the batch that its spread can be read with (the statement sees the conversation as it was before
     * it): with the batch's own rows, all a live delivery is masked with, without a statement more.
     */
    const insertAll = SqlSchema.findAll({
      Request: Schema.Array(Schema.Unknown),
      Result: InsertedRow,
      execute: (rows) => {
        const news = rows as ReadonlyArray<NewMessage>
        // The rows as one JSON parameter: the statement's text, and so its planning, stays the same whatever
        // the batch's size (a VALUES list with a seq subquery per row took longer to plan than to run).
        const input = JSON.stringify(
          news.map((m, i) => ({
            i,
            id: m.id,
            conversation_id: m.conversationId,
            sender_id: m.senderId,
            message_text: m.messageText,
            client_id: m.clientId,
            created_at: m.createdAt.toISOString(),
            nth: m.nth
          }))
        )
        // The batch's outbox rows, waiting to be written, go as this statement's first CTEs: one round trip.
        return withWaitingWrites(
          sql,
          (leading) => sql`
        WITH ${leading} stored AS (
          INSERT INTO messages (id, conversation_id, sender_id, message_text, client_id, read_at, created_at, seq)
          SELECT n.id, n.conversation_id, n.sender_id, n.message_text, n.client_id, NULL, n.created_at,
            (SELECT COALESCE(max(m.seq), 0) FROM messages m WHERE m.conversation_id = n.conversation_id) + n.nth
          FROM json_to_recordset(${input}::json) AS n (
            i integer, id uuid, conversation_id uuid, sender_id uuid, message_text text, client_id text,
            created_at timestamptz, nth integer
          )
          ORDER BY n.i
          ON CONFLICT (sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
          RETURNING *
        ), touched AS (
          UPDATE conversations SET last_message_at = GREATEST(conversations.last_message_at, latest.at)
          FROM (SELECT conversation_id, max(created_at) AS at FROM stored GROUP BY conversation_id) latest
          WHERE conversations.id = latest.conversation_id
        )
        SELECT stored.*, ${sql.literal(answersAsk("stored"))},
          (SELECT COALESCE(json_agg(json_build_object(
                    'seq', n.seq, 'senderId', n.sender_id, 'messageText', n.message_text, 'createdAt', n.created_at)),
                  '[]'::json)
           FROM (${nearestOfSender(sql, "stored", "before")}) n) AS earlier
        FROM stored`
        )
      }
    })

    const storeBatch = (batch: ReadonlyArray<Pending>) =>
      transactor.transaction(
        Effect.gen(function* () {
          const rows = yield* lockConversationsAndSellers(
            batch.map((p) => ({ conversationId: p.conversationId, senderId: p.senderId, clientId: p.input.clientId }))
          )
          const locked = new Map(
            rows.map(({ sellerProfile: _, repeated: __, ...row }) => [row.id, row as LockedConversation] as const)
          )
          const profiles = new Map(
            rows.flatMap(({ sellerProfile }) => (sellerProfile === null ? [] : [[sellerProfile.userId, sellerProfile]]))
          )
          const at = new Date(yield* Clock.currentTimeMillis)
          // Each message's own checks: a refusal is that message's answer only.
          const checked = yield* Effect.forEach(batch, (pending) =>
            Effect.either(
              Effect.gen(function* () {
                yield* requireContent(pending.input)
                const conversation = yield* asConversationParty(
                  Option.fromNullable(locked.get(pending.conversationId)),
                  pending.senderId
                )
                yield* requireMayWrite(
                  conversation,
                  pending.senderId,
                  Option.fromNullable(profiles.get(pending.senderId))
                )
                const recipientId = otherParty(conversation, pending.senderId)
                return { conversation, recipientId, recipientOnline: yield* presence(conversation.id, recipientId) }
              })
            )
          )
          // Sent before with one of the batch's `client_id`s: read with the locks, by the statement's snapshot, so
          // one committed while the batch waited on a lock is missing here; the insert skips it, and the batch
          // goes again message by message (below).
          const sent = new Map<string, typeof MessageRow.Type>(
            (yield* repeatedOf(rows[0]?.repeated ?? [])).map((m) => [repeatKey(m.senderId, m.clientId), m] as const)
          )
          const last = new Map<string, number>()
          const nth = new Map<string, number>()
          const firstOfKey = new Map<string, number>()
          const news: Array<NewMessage | undefined> = []
          for (const [i, pending] of batch.entries()) {
            const check = checked[i]!
            const key =
              pending.input.clientId === undefined ? undefined : repeatKey(pending.senderId, pending.input.clientId)
            if (Either.isLeft(check) || (key !== undefined && (sent.has(key) || firstOfKey.has(key)))) {
              news.push(undefined)
              continue
            }
            if (key !== undefined) firstOfKey.set(key, i)
            const conversation = check.right.conversation
            const previous =
              last.get(conversation.id) ?? conversation.lastMessageAt?.getTime() ?? Number.NEGATIVE_INFINITY
            const createdAt = Math.max(at.getTime(), previous + 1)
            last.set(conversation.id, createdAt)
            nth.set(conversation.id, (nth.get(conversation.id) ?? 0) + 1)
            news.push({
              id: yield* ids.next,
              conversationId: conversation.id,
              senderId: pending.senderId,
              messageText: pending.input.messageText ?? "",
              clientId: pending.input.clientId ?? null,
              createdAt: new Date(createdAt),
              nth: nth.get(conversation.id)!
            })
          }
          // In the order of their conversations' sellers: a seller's answer can lock the seller's figures (the
          // trust trigger, migration 0015), and batches that take those rows in one order cannot deadlock.
          const toStore = news
            .filter((m): m is NewMessage => m !== undefined)
            .sort((a, b) => Str.Order(locked.get(a.conversationId)!.sellerId, locked.get(b.conversationId)!.sellerId))
          // Appended before the insert, which takes them with it; a batch that falls back rolls them back.
          const events = batch.flatMap((_, i) => {
            const m = news[i]
            const check = checked[i]!
            if (m === undefined || Either.isLeft(check)) return []
            const { recipientId, recipientOnline } = check.right
            return [
              DomainEvent.MessageSent({
                messageId: m.id,
                conversationId: m.conversationId,
                senderId: m.senderId,
                recipientId,
                recipientOnline
              })
            ]
          })
          if (events.length > 0) yield* outbox.append(events, at)
          const stored = new Map(
            (toStore.length === 0 ? [] : yield* insertAll(toStore)).map((row) => [row.id, row] as const)
          )
          if (stored.size !== toStore.length) return yield* Effect.fail(new BatchFallback())
          // What the live delivery masks each message with: the batch's rows and those read with them before it.
          const spreads = spreadsOf(
            [...stored.values()].filter((row) => !contactsShownAt(locked.get(row.conversationId)!.offerStatus))
          )
          const answered = [...stored.values()].filter((row) => row.answersAsk).map((row) => sellerTag(row.senderId))
          if (answered.length > 0) yield* reads.changed([...new Set(answered)])
          return batch.map((pending, i): Exit.Exit<BatchedMessage, SendError> => {
            const check = checked[i]!
            if (Either.isLeft(check)) return Exit.fail(check.left)
            const own = news[i]
            if (own !== undefined) {
              const message = messageOf(stored.get(own.id)!)
              return Exit.succeed({
                conversation: check.right.conversation,
                message,
                created: true,
                around: spreads.get(spreadKey(message.conversationId, message.seq))
              })
            }
            // A repeat: the first message with its client_id, stored before or earlier in this batch.
            const key = repeatKey(pending.senderId, pending.input.clientId)
            const first = sent.get(key) ?? messageOf(stored.get(news[firstOfKey.get(key)!]!.id)!)
            return Exit.succeed({ conversation: check.right.conversation, message: first, created: false })
          })
        })
      )

    const batched = yield* makeWriteBatches<Pending, BatchedMessage, SendError>("messages", WRITE_BATCH_LIMITS, {
      batch: storeBatch,
      alone: (pending) => chat.send(pending.senderId, pending.conversationId, pending.input, presence),
      // Even alone, the batch's statements are fewer: no read of the conversation before its lock, and no read
      // of the spread after the commit (the insert returns the earlier lines).
      loneAsBatch: true
    })

    /** Sends a message as `Chat.send` does, in one transaction with the messages sent at the same moment. */
    const send = (
      senderId: string,
      conversationId: string,
      input: MessageInput
    ): Effect.Effect<BatchedMessage, SendError> =>
      // A message with attachments goes alone through core's `Chat.send`, which attaches them in its transaction.
      hasAttachments(input)
        ? chat.send(senderId, conversationId, input, presence)
        : batched({ senderId, conversationId, input })

    return { send } as const
  })
