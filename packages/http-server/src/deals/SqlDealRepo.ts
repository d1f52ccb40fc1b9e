import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Deal, DealRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { requestTag, sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"

/** A deal as stored: the entity under its column names. */
const DealRow = snakeCaseKeys(Deal.fields)

export const SqlDealRepo = Layer.effect(
  DealRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged
    // A deal moves its seller's trust figures (deals accepted, completed, cancelled) and its request.
    const dealTags = (deal: Deal) => [sellerTag(deal.sellerId), requestTag(deal.requestId)]

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      SqlSchema.findOne({ Request: Schema.String, Result: DealRow, execute })
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
      insert: (deal) => insert(deal).pipe(Effect.orDie, Effect.zipRight(reads.changed(dealTags(deal)))),
      findById: (id) => findById(id).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (deal) => update(deal).pipe(Effect.orDie, Effect.zipRight(reads.changed(dealTags(deal)))),
      hasOpenFor: (userId) =>
        sql<{ open: boolean }>`
          SELECT EXISTS (
            SELECT 1 FROM deals WHERE status = 'accepted' AND (buyer_id = ${userId} OR seller_id = ${userId})
          ) AS open`.pipe(
          Effect.map(([row]) => row?.open === true),
          Effect.orDie
        )
    })
  })
)
