import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Message, MessageRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A message as stored: the entity under its column names. */
export const MessageRow = snakeCaseKeys(Message.fields)

const NewMessageRow = MessageRow.omit("seq")

const MarkedCount = Schema.Struct({ count: Schema.Number })

export const SqlMessageRepo = Layer.effect(
  MessageRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

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
      SELECT * FROM stored`
    const insert = SqlSchema.single({
      Request: NewMessageRow,
      Result: MessageRow,
      execute: (row) => storeAndTouch(row, sql``)
    })
    // The conflict target repeats the partial index's predicate, which is how Postgres picks that index.
    const insertUnlessSent = SqlSchema.findOne({
      Request: NewMessageRow,
      Result: MessageRow,
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
          return insert(message).pipe(
            Effect.map((stored) => ({ message: stored, created: true })),
            Effect.orDie
          )
        }
        return insertUnlessSent(message).pipe(
          Effect.flatMap(
            Option.match({
              onSome: (stored) => Effect.succeed({ message: stored, created: true }),
              onNone: () =>
                findSent({ senderId: message.senderId, clientId }).pipe(
                  Effect.map((stored) => ({ message: stored, created: false }))
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
