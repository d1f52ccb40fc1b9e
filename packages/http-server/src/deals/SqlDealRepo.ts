import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { DealRepo, DealStatus } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { byUuid, column, NullableString, NullableTimestamp, Timestamp } from "../db/Rows.js"

export const DealRow = Schema.Struct({
  id: Schema.String,
  requestId: column("request_id", Schema.String),
  offerId: column("offer_id", Schema.String),
  buyerId: column("buyer_id", Schema.String),
  sellerId: column("seller_id", Schema.String),
  conversationId: column("conversation_id", Schema.String),
  status: DealStatus,
  createdAt: column("created_at", Timestamp),
  completedAt: column("completed_at", NullableTimestamp),
  cancelledAt: column("cancelled_at", NullableTimestamp),
  cancelReason: column("cancel_reason", NullableString),
  cancelDescription: column("cancel_description", NullableString)
})

export const SqlDealRepo = Layer.effect(
  DealRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      byUuid(SqlSchema.findOne({ Request: Schema.String, Result: DealRow, execute }))
    const findById = findOne((id) => sql`SELECT * FROM deals WHERE id = ${id}`)
    const lock = findOne((id) => sql`SELECT * FROM deals WHERE id = ${id} FOR UPDATE`)
    const insert = SqlSchema.void({
      Request: DealRow,
      execute: (row) => sql`INSERT INTO deals ${sql.insert(row)}`
    })
    const update = SqlSchema.void({
      Request: DealRow,
      execute: (row) => sql`
        UPDATE deals SET ${sql.update(row, [
          "id",
          "request_id",
          "offer_id",
          "buyer_id",
          "seller_id",
          "conversation_id",
          "created_at"
        ])}
        WHERE id = ${row.id}`
    })

    return DealRepo.of({
      insert: (deal) => insert(deal).pipe(Effect.orDie),
      findById: (id) => findById(id).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (deal) => update(deal).pipe(Effect.orDie)
    })
  })
)
