import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Message, MessageRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"

/** A message as stored: the entity under its column names. */
export const MessageRow = snakeCaseKeys(Message.fields)

const NewMessageRow = MessageRow.omit("seq")

/**
 * Whether a stored message is its seller's first reply to a buyer's question (seller_reply_times, migration
 * 0015): only then does its trigger move the seller's trust figures, which a kept profile shows. Read in the
 * insert's own statement, whose snapshot is from before the trigger ran.
 */
export const answersAsk = (alias: string) => `EXISTS (
  SELECT 1 FROM seller_reply_times r
  WHERE r.conversation_id = ${alias}.conversation_id AND r.seller_user_id = ${alias}.sender_id AND r.replied_at IS NULL
) AS answers_ask`

/** A stored message, and whether it answered a buyer's question (see `answersAsk`). */
export const StoredRow = Schema.Struct({
  ...MessageRow.fields,
  ...snakeCaseKeys({ answersAsk: Schema.Boolean }).fields
})

const MarkedCount = Schema.Struct({ count: Schema.Number })

export const SqlMessageRepo = Layer.effect(
  MessageRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged
    // A seller's reply moves their trust figures (the reply time the trigger of migration 0015 keeps).
    const stored = ({ answersAsk: answers, ...message }: typeof StoredRow.Type) =>
      Effect.as(answers ? reads.changed([sellerTag(message.senderId)]) : Effect.void, {
        message: message as Message,
        created: true
      })

    /*
     * The next seq is read in the same statement, from messages_by_conversation_seq; the caller holds the
     * conversation's row lock, so no other writer of that conversation is between the read and the insert.
     * The conversation's last activity moves in the same statement too (a round trip less per message), and
     * only when a row was stored; GREATEST ignores NULL and never moves it back in time.
     */
    const storeAndTouch = (row: typeof NewMessageRow.Encoded, onConflict: Statement.Fragment) => sql`
      WITH stored AS (
        INSERT INTO messages (id, conversation_id, sender_id, kind, message_text, client_id, read_at, created_at, seq)
        VALUES (${row.id}, ${row.conversation_id}, ${row.sender_id}, ${row.kind}, ${row.message_text}, ${row.client_id},
                ${row.read_at}, ${row.created_at},
                (SELECT COALESCE(max(seq), 0) + 1 FROM messages WHERE conversation_id = ${row.conversation_id}))
        ${onConflict}
        RETURNING *
      ), touched AS (
        UPDATE conversations SET last_message_at = GREATEST(conversations.last_message_at, stored.created_at)
        FROM stored WHERE conversations.id = stored.conversation_id
      )
      SELECT stored.*, ${sql.literal(answersAsk("stored"))} FROM stored`
    const insert = SqlSchema.single({
      Request: NewMessageRow,
      Result: StoredRow,
      execute: (row) => storeAndTouch(row, sql``)
    })
    // The conflict target repeats the partial index's predicate, which is how Postgres picks that index.
    const insertUnlessSent = SqlSchema.findOne({
      Request: NewMessageRow,
      Result: StoredRow,
      execute: (row) =>
        storeAndTouch(row, sql`ON CONFLICT (sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING`)
    })
    const findSent = SqlSchema.single({
      Request: Schema.Struct({ senderId: Schema.String, clientId: Schema.String }),
      Result: MessageRow,
      execute: ({ clientId, senderId }) =>
        sql`SELECT * FROM messages WHERE sender_id = ${senderId} AND client_id = ${clientId}`
    })
    const markRead = SqlSchema.single({
      Request: Schema.Struct({
        conversationId: Schema.String,
        readerId: Schema.String,
        at: Schema.DateFromSelf,
        upToSeq: Schema.UndefinedOr(Schema.Number)
      }),
      Result: MarkedCount,
      execute: ({ at, conversationId, readerId, upToSeq }) => sql`
        WITH marked AS (
          UPDATE messages SET read_at = ${at}
          WHERE conversation_id = ${conversationId} AND sender_id <> ${readerId} AND read_at IS NULL
            ${upToSeq === undefined ? sql`` : sql`AND seq <= ${upToSeq}`}
          RETURNING 1
        )
        SELECT count(*) AS count FROM marked`
    })

    return MessageRepo.of({
      insertOnce: (message) => {
        const { clientId } = message
        if (clientId === null) {
          return insert(message).pipe(Effect.orDie, Effect.flatMap(stored))
        }
        return insertUnlessSent(message).pipe(
          Effect.flatMap(
            Option.match({
              onSome: stored,
              onNone: () =>
                findSent({ senderId: message.senderId, clientId }).pipe(
                  Effect.map((row) => ({ message: row as Message, created: false }))
                )
            })
          ),
          Effect.orDie
        )
      },
      markRead: (conversationId, readerId, at, upToSeq) =>
        markRead({ conversationId, readerId, at, upToSeq }).pipe(
          Effect.map((row) => row.count),
          Effect.orDie
        )
    })
  })
)
