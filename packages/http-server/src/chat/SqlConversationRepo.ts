import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Conversation, ConversationRepo, OfferStatus, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { deferredWrites, insertWrite } from "../db/DeferredWrites.js"

/** A conversation as stored: the entity under its column names. */
const ConversationRow = snakeCaseKeys(Conversation.fields)

const LockedConversationRow = Schema.Struct({
  ...ConversationRow.fields,
  ...snakeCaseKeys({ offerStatus: OfferStatus }).fields
})

export const SqlConversationRepo = Layer.effect(
  ConversationRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      SqlSchema.findOne({ Request: Schema.String, Result: ConversationRow, execute })
    const findById = findOne((id) => sql`SELECT * FROM conversations WHERE id = ${id}`)
    const findByOfferId = findOne((offerId) => sql`SELECT * FROM conversations WHERE offer_id = ${offerId}`)
    // Only the conversation's row is locked: the offer's status is read as committed, as any read is.
    const lock = SqlSchema.findOne({
      Request: Schema.String,
      Result: LockedConversationRow,
      execute: (id) => sql`
        SELECT c.*, o.status AS offer_status FROM conversations c JOIN offers o ON o.id = c.offer_id
        WHERE c.id = ${id} FOR UPDATE OF c`
    })
    const insert = SqlSchema.void({
      Request: ConversationRow,
      execute: (row) => deferredWrites(sql, [insertWrite("conversations", [row])])
    })

    return ConversationRepo.of({
      insert: (conversation) => insert(conversation).pipe(Effect.orDie),
      findById: (id) => findById(id).pipe(Effect.orDie),
      findByOfferId: (offerId) => findByOfferId(offerId).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie)
    })
  })
)
