import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { BuyRequest, RequestRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { deferredWrites, insertWrite, statementWrite, updateWrite } from "../db/DeferredWrites.js"
import { REQUEST_LISTS, requestTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { recordTerms, withSearchColumns } from "../search/SearchWords.js"

/** BuyRequest as stored: the entity under its column names. */
const BuyRequestRow = snakeCaseKeys(BuyRequest.fields)

export const SqlRequestRepo = Layer.effect(
  RequestRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      SqlSchema.findOne({ Request: Schema.String, Result: BuyRequestRow, execute })
    const findById = findOne((id) => sql`SELECT * FROM buy_requests WHERE id = ${id}`)
    const lock = findOne((id) => sql`SELECT * FROM buy_requests WHERE id = ${id} FOR UPDATE`)
    // Requests posted together: one statement, each row under its key (an update of it later in the
    // transaction sends it first), and the search words of all of them recorded once.
    const insertAll = SqlSchema.void({
      Request: Schema.Array(BuyRequestRow),
      execute: (rows) => {
        // The request's search words are written with it; its brand, model, notes and places never change after.
        const stored = rows.map(withSearchColumns)
        const terms = recordTerms(
          sql,
          stored.flatMap((one) => one.searchWords)
        )
        return deferredWrites(sql, [
          insertWrite(
            "buy_requests",
            stored.map((one) => one.row),
            stored.map((one) => `buy_requests ${one.row.id}`)
          ),
          statementWrite(terms.deletions, "search_term_deletions"),
          statementWrite(terms.terms, "search_terms")
        ])
      }
    })
    const update = SqlSchema.void({
      Request: BuyRequestRow,
      execute: (row) => deferredWrites(sql, [updateWrite("buy_requests", row, ["id", "buyer_id", "created_at"])])
    })

    const insertAllOf = (requests: ReadonlyArray<BuyRequest>) =>
      requests.length === 0
        ? Effect.void
        : insertAll(requests).pipe(Effect.orDie, Effect.zipRight(reads.changed([REQUEST_LISTS])))

    return RequestRepo.of({
      insert: (request) => insertAllOf([request]),
      insertAll: insertAllOf,
      findById: (id) => findById(id).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (request) =>
        update(request).pipe(Effect.orDie, Effect.zipRight(reads.changed([REQUEST_LISTS, requestTag(request.id)]))),
      activeIdsOfBuyer: (buyerId) =>
        sql<{ id: string }>`
          SELECT id FROM buy_requests WHERE buyer_id = ${buyerId} AND status = 'active' ORDER BY id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        )
    })
  })
)
