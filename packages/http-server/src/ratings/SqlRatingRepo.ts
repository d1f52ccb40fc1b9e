import { SqlClient, SqlSchema } from "@effect/sql"
import { RatingRepo } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { column, isUuid, NullableString, Timestamp } from "../db/Rows.js"

export const RatingRow = Schema.Struct({
  id: Schema.String,
  dealId: column("deal_id", Schema.String),
  sellerId: column("seller_id", Schema.String),
  buyerId: column("buyer_id", Schema.String),
  rating: Schema.Number,
  reviewText: column("review_text", NullableString),
  createdAt: column("created_at", Timestamp)
})

const RatingExists = Schema.Struct({ exists: Schema.Boolean })
const RatingTotalsRow = Schema.Struct({ sum: Schema.Number, count: Schema.Number })

export const SqlRatingRepo = Layer.effect(
  RatingRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

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
      insert: (rating) => insert(rating).pipe(Effect.orDie),
      existsForDeal: (dealId) =>
        isUuid(dealId)
          ? existsForDeal(dealId).pipe(
              Effect.map((row) => row.exists),
              Effect.orDie
            )
          : Effect.succeed(false),
      totalsForSeller: (sellerId) =>
        isUuid(sellerId) ? totalsForSeller(sellerId).pipe(Effect.orDie) : Effect.succeed({ sum: 0, count: 0 })
    })
  })
)
