import { SqlClient, SqlSchema } from "@effect/sql"
import { Platform, SessionRepo } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { byUuid, isUuid, NullableString, NullableTimestamp, Timestamp } from "../db/Rows.js"
import { UserRow } from "../users/SqlUserRepo.js"

const SessionColumns = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: NullableTimestamp,
  last_used_at: Timestamp,
  device_platform: Schema.NullOr(Platform),
  device_name: NullableString,
  ip_prefix: NullableString
})

/** A session row; the device is two columns, both set or both null. */
export const SessionRow = Schema.transform(
  SessionColumns,
  Schema.Struct({
    id: Schema.String,
    userId: Schema.String,
    createdAt: Timestamp,
    expiresAt: Timestamp,
    revokedAt: NullableTimestamp,
    lastUsedAt: Timestamp,
    device: Schema.NullOr(Schema.Struct({ platform: Platform, name: Schema.String })),
    ipPrefix: NullableString
  }),
  {
    strict: true,
    decode: (row) => ({
      id: row.id,
      userId: row.user_id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
      device:
        row.device_platform !== null && row.device_name !== null
          ? { platform: row.device_platform, name: row.device_name }
          : null,
      ipPrefix: row.ip_prefix
    }),
    encode: (session) => ({
      id: session.id,
      user_id: session.userId,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      revoked_at: session.revokedAt,
      last_used_at: session.lastUsedAt,
      device_platform: session.device?.platform ?? null,
      device_name: session.device?.name ?? null,
      ip_prefix: session.ipPrefix
    })
  }
)

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
        ),
      revokeOwned: (userId, id, at) =>
        isUuid(id)
          ? sql`
              UPDATE sessions SET revoked_at = ${at}
              WHERE id = ${id} AND user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${at}
              RETURNING id`.pipe(
              Effect.map((rows) => rows.length > 0),
              Effect.orDie
            )
          : Effect.succeed(false),
      revokeOthers: (userId, keepId, at) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = ${at}
          WHERE user_id = ${userId} AND id <> ${keepId} AND revoked_at IS NULL AND expires_at > ${at}
          RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      lockLive: (id, at) =>
        isUuid(id)
          ? sql`
              SELECT id FROM sessions WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${at}
              FOR SHARE`.pipe(
              Effect.map((rows) => rows.length > 0),
              Effect.orDie
            )
          : Effect.succeed(false),
      touch: (id, at) =>
        sql`UPDATE sessions SET last_used_at = ${at} WHERE id = ${id} AND last_used_at < ${at}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
)
