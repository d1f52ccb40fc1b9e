import { SqlClient, SqlSchema } from "@effect/sql"
import { Rating, RatingRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"

/** A rating as stored: the entity under its column names. */
const RatingRow = snakeCaseKeys(Rating.fields)

const RatingExists = Schema.Struct({ exists: Schema.Boolean })
const RatingTotalsRow = Schema.Struct({ sum: Schema.Number, count: Schema.Number })

export const SqlRatingRepo = Layer.effect(
  RatingRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged

    const insert = SqlSchema.void({
      Request: RatingRow,
      execute: (row) => sql`INSERT INTO ratings ${sql.insert(row)}`
    })
    const existsForDeal = SqlSchema.single({
      Request: Schema.String,
      Result: RatingExists,
      execute: (dealId) => sql`SELECT EXISTS (SELECT 1 FROM ratings WHERE deal_id = ${dealId}) AS exists`
    })

    const totalsForSeller = SqlSchema.single({
      Request: Schema.String,
      Result: RatingTotalsRow,
      execute: (sellerId) =>
        sql`SELECT COALESCE(SUM(rating), 0) AS sum, COUNT(*) AS count FROM ratings WHERE seller_id = ${sellerId}`
    })

    return RatingRepo.of({
      insert: (rating) =>
        insert(rating).pipe(Effect.orDie, Effect.zipRight(reads.changed([sellerTag(rating.sellerId)]))),
      existsForDeal: (dealId) =>
        existsForDeal(dealId).pipe(
          Effect.map((row) => row.exists),
          Effect.orDie
        ),
      totalsForSeller: (sellerId) => totalsForSeller(sellerId).pipe(Effect.orDie)
    })
  })
)
