import { SqlClient, SqlSchema } from "@effect/sql"
import { Language, UserRepo } from "@talab/core"
import { Effect, Layer, Schema } from "effect"
import { byUuid, column, NullableString, Timestamp } from "./Rows.js"

export const UserRow = Schema.Struct({
  id: Schema.String,
  phoneNumber: column("phone_number", Schema.String),
  name: NullableString,
  avatarUrl: column("avatar_url", NullableString),
  language: Language,
  isAdmin: column("is_admin", Schema.Boolean),
  createdAt: column("created_at", Timestamp)
})

export const SqlUserRepo = Layer.effect(
  UserRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (id) => sql`SELECT * FROM users WHERE id = ${id}`
    })
    const findByPhone = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (phoneNumber) => sql`SELECT * FROM users WHERE phone_number = ${phoneNumber}`
    })
    const insertIfNew = SqlSchema.void({
      Request: UserRow,
      execute: (row) => sql`INSERT INTO users ${sql.insert(row)} ON CONFLICT (phone_number) DO NOTHING`
    })
    const update = SqlSchema.void({
      Request: UserRow,
      execute: (row) => sql`UPDATE users SET ${sql.update(row, ["id", "created_at"])} WHERE id = ${row.id}`
    })

    return UserRepo.of({
      findById: (id) => byUuid(findById)(id).pipe(Effect.orDie),
      findByPhone: (phoneNumber) => findByPhone(phoneNumber).pipe(Effect.orDie),
      insertOrGet: (user) =>
        insertIfNew(user).pipe(Effect.zipRight(findByPhone(user.phoneNumber)), Effect.flatten, Effect.orDie),
      update: (user) => update(user).pipe(Effect.orDie)
    })
  })
)
