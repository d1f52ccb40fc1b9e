import { SqlClient, SqlSchema } from "@effect/sql"
import { RatingRepo } from "@talab/core"
import { Effect, Layer, Schema } from "effect"
import { column, isUuid, NullableString, Timestamp } from "./Rows.js"

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

    return RatingRepo.of({
      insert: (rating) => insert(rating).pipe(Effect.orDie),
      existsForDeal: (dealId) =>
        isUuid(dealId)
          ? existsForDeal(dealId).pipe(
              Effect.map((row) => row.exists),
              Effect.orDie
            )
          : Effect.succeed(false)
    })
  })
)
