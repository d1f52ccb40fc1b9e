import { SqlClient, SqlSchema } from "@effect/sql"
import { SessionRepo } from "@talab/core"
import { Effect, Layer, Option, Schema } from "effect"
import { byUuid, column, isUuid, NullableTimestamp, Timestamp } from "./Rows.js"
import { UserRow } from "./SqlUserRepo.js"

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

    const decodeSession = Schema.decodeUnknownSync(SessionRow)
    const decodeUser = Schema.decodeUnknownSync(UserRow)
    // One round trip instead of two: every authenticated call reads both. A row that does not decode is a defect.
    const findWithUser = (id: string) =>
      sql<Record<string, unknown>>`
        SELECT s.*, u.phone_number, u.name, u.avatar_url, u.language, u.is_admin, u.created_at AS user_created_at
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = ${id}`.pipe(
        Effect.map(([row]) =>
          row === undefined
            ? Option.none()
            : Option.some({
                session: decodeSession(row),
                user: decodeUser({
                  id: row.user_id,
                  phone_number: row.phone_number,
                  name: row.name,
                  avatar_url: row.avatar_url,
                  language: row.language,
                  is_admin: row.is_admin,
                  created_at: row.user_created_at
                })
              })
        )
      )

    return SessionRepo.of({
      insert: (session) => insert(session).pipe(Effect.orDie),
      findById: (id) => byUuid(findById)(id).pipe(Effect.orDie),
      findWithUser: (id) => (isUuid(id) ? findWithUser(id) : Effect.succeedNone).pipe(Effect.orDie),
      // The first revocation is the one that counts.
      revoke: (id, at) =>
        sql`UPDATE sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
)
