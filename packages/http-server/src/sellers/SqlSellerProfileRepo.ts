import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { SellerProfile, SellerProfileRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { textArrayLiteral } from "../db/PgArrays.js"
import { sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"

const SellerProfileRow = snakeCaseKeys(SellerProfile.fields)

/**
 * The profiles of several sellers, locked shared in user id order (the ports' lock order, before their requests
 * or conversations): what a batch of offers holds, as one offer holds its seller's.
 */
export const lockProfilesShared = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: SellerProfileRow,
    execute: (userIds) => sql`
      SELECT * FROM seller_profiles WHERE user_id = ANY(${textArrayLiteral(userIds)}::uuid[]) ORDER BY user_id FOR SHARE`
  })

export const SqlSellerProfileRepo = Layer.effect(
  SellerProfileRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged

    const findOne = (execute: (key: string) => Statement.Statement<object>) =>
      SqlSchema.findOne({ Request: Schema.String, Result: SellerProfileRow, execute })
    const insertIfAbsent = SqlSchema.findAll({
      Request: SellerProfileRow,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (row) =>
        sql`INSERT INTO seller_profiles ${sql.insert(row)} ON CONFLICT (user_id) DO NOTHING RETURNING id`
    })
    const update = SqlSchema.void({
      Request: SellerProfileRow,
      execute: (row) =>
        sql`UPDATE seller_profiles SET ${sql.update(row, ["id", "user_id", "created_at"])} WHERE id = ${row.id}`
    })

    const findById = findOne((id) => sql`SELECT * FROM seller_profiles WHERE id = ${id}`)
    const findByUserId = findOne((userId) => sql`SELECT * FROM seller_profiles WHERE user_id = ${userId}`)
    const lock = findOne((id) => sql`SELECT * FROM seller_profiles WHERE id = ${id} FOR UPDATE`)
    const lockByUserId = findOne((userId) => sql`SELECT * FROM seller_profiles WHERE user_id = ${userId} FOR UPDATE`)
    const lockSharedByUserId = findOne(
      (userId) => sql`SELECT * FROM seller_profiles WHERE user_id = ${userId} FOR SHARE`
    )

    return SellerProfileRepo.of({
      insertIfAbsent: (profile) =>
        insertIfAbsent(profile).pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie,
          Effect.tap((inserted) => (inserted ? reads.changed([sellerTag(profile.userId)]) : Effect.void))
        ),
      findById: (id) => findById(id).pipe(Effect.orDie),
      findByUserId: (userId) => findByUserId(userId).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      lockByUserId: (userId) => lockByUserId(userId).pipe(Effect.orDie),
      lockSharedByUserId: (userId) => lockSharedByUserId(userId).pipe(Effect.orDie),
      update: (profile) =>
        update(profile).pipe(Effect.orDie, Effect.zipRight(reads.changed([sellerTag(profile.userId)])))
    })
  })
)
