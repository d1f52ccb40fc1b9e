import { SqlClient, SqlSchema } from "@effect/sql"
import { SessionRepo } from "@talab/core"
import { Effect, Layer, Schema } from "effect"
import { byUuid, column, NullableTimestamp, Timestamp } from "./Rows.js"

export const SessionRow = Schema.Struct({
  id: Schema.String,
  userId: column("user_id", Schema.String),
  createdAt: column("created_at", Timestamp),
  expiresAt: column("expires_at", Timestamp),
  revokedAt: column("revoked_at", NullableTimestamp)
})

export const SqlSessionRepo = Layer.effect(
  SessionRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: SessionRow,
      execute: (row) => sql`INSERT INTO sessions ${sql.insert(row)}`
    })
    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionRow,
      execute: (id) => sql`SELECT * FROM sessions WHERE id = ${id}`
    })

    return SessionRepo.of({
      insert: (session) => insert(session).pipe(Effect.orDie),
      findById: (id) => byUuid(findById)(id).pipe(Effect.orDie),
      // The first revocation is the one that counts.
      revoke: (id, at) =>
        sql`UPDATE sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
)
