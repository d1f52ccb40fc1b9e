import { SqlClient, SqlSchema } from "@effect/sql"
import { MessageRepo } from "@talab/core"
import { Effect, Layer, Option, Schema } from "effect"
import { column, NullableString, NullableTimestamp, Timestamp } from "./Rows.js"

export const MessageRow = Schema.Struct({
  id: Schema.String,
  conversationId: column("conversation_id", Schema.String),
  senderId: column("sender_id", Schema.String),
  messageText: column("message_text", Schema.String),
  clientId: column("client_id", NullableString),
  readAt: column("read_at", NullableTimestamp),
  createdAt: column("created_at", Timestamp)
})

const MarkedCount = Schema.Struct({ count: Schema.Number })

export const SqlMessageRepo = Layer.effect(
  MessageRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: MessageRow,
      execute: (row) => sql`INSERT INTO messages ${sql.insert(row)}`
    })
    // The conflict target repeats the partial index's predicate, which is how Postgres picks that index.
    const insertUnlessSent = SqlSchema.findOne({
      Request: MessageRow,
      Result: MessageRow,
      execute: (row) => sql`
        INSERT INTO messages ${sql.insert(row)}
        ON CONFLICT (sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
        RETURNING *`
    })
    const findSent = SqlSchema.single({
      Request: Schema.Struct({ senderId: Schema.String, clientId: Schema.String }),
      Result: MessageRow,
      execute: ({ clientId, senderId }) =>
        sql`SELECT * FROM messages WHERE sender_id = ${senderId} AND client_id = ${clientId}`
    })
    const markRead = SqlSchema.single({
      Request: Schema.Struct({ conversationId: Schema.String, readerId: Schema.String, at: Schema.DateFromSelf }),
      Result: MarkedCount,
      execute: ({ at, conversationId, readerId }) => sql`
        WITH marked AS (
          UPDATE messages SET read_at = ${at}
          WHERE conversation_id = ${conversationId} AND sender_id <> ${readerId} AND read_at IS NULL
          RETURNING 1
        )
        SELECT count(*) AS count FROM marked`
    })

    return MessageRepo.of({
      insertOnce: (message) => {
        const { clientId } = message
        if (clientId === null) return insert(message).pipe(Effect.as({ message, created: true }), Effect.orDie)
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
      markRead: (conversationId, readerId, at) =>
        markRead({ conversationId, readerId, at }).pipe(
          Effect.map((row) => row.count),
          Effect.orDie
        )
    })
  })
)
