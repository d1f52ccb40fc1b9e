import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Category, ConditionPref, RequestRepo, RequestStatus } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { byUuid, column, NullableString, NullableTimestamp, Timestamp } from "../db/Rows.js"

export const BuyRequestRow = Schema.Struct({
  id: Schema.String,
  buyerId: column("buyer_id", Schema.String),
  category: Category,
  productBrand: column("product_brand", NullableString),
  productModel: column("product_model", NullableString),
  conditionPref: column("condition_pref", ConditionPref),
  budgetMin: column("budget_min", Schema.Number),
  budgetMax: column("budget_max", Schema.Number),
  locationDistrict: column("location_district", Schema.String),
  locationCity: column("location_city", NullableString),
  notes: NullableString,
  status: RequestStatus,
  offerCount: column("offer_count", Schema.Number),
  createdAt: column("created_at", Timestamp),
  closedAt: column("closed_at", NullableTimestamp),
  expiresAt: column("expires_at", Timestamp),
  extendedAt: column("extended_at", NullableTimestamp),
  remindedAt: column("reminded_at", NullableTimestamp)
})

export const SqlRequestRepo = Layer.effect(
  RequestRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      byUuid(SqlSchema.findOne({ Request: Schema.String, Result: BuyRequestRow, execute }))
    const findById = findOne((id) => sql`SELECT * FROM buy_requests WHERE id = ${id}`)
    const lock = findOne((id) => sql`SELECT * FROM buy_requests WHERE id = ${id} FOR UPDATE`)
    const insert = SqlSchema.void({
      Request: BuyRequestRow,
      execute: (row) => sql`INSERT INTO buy_requests ${sql.insert(row)}`
    })
    const update = SqlSchema.void({
      Request: BuyRequestRow,
      execute: (row) =>
        sql`UPDATE buy_requests SET ${sql.update(row, ["id", "buyer_id", "created_at"])} WHERE id = ${row.id}`
    })

    return RequestRepo.of({
      insert: (request) => insert(request).pipe(Effect.orDie),
      findById: (id) => findById(id).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (request) => update(request).pipe(Effect.orDie)
    })
  })
)
