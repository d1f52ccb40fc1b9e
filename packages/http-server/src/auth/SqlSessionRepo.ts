import { SqlClient, SqlSchema } from "@effect/sql"
import { Platform, Session, SessionRepo, snakeCaseKeys, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { columnsAs, nested } from "../db/Rows.js"
import { PublicUrl, shownAvatar } from "../users/AvatarUrl.js"

/** The device is stored as two columns, both set or both null. */
const SessionColumns = Schema.Struct({
  ...Session.omit("device").fields,
  devicePlatform: Schema.NullOr(Platform),
  deviceName: Schema.NullOr(Schema.String)
})

/** A session as stored: the entity under its column names, its device in two columns. */
export const SessionRow = Schema.transform(snakeCaseKeys(SessionColumns.fields), Schema.typeSchema(Session), {
  strict: true,
  decode: ({ deviceName, devicePlatform, ...session }) => ({
    ...session,
    device: devicePlatform !== null && deviceName !== null ? { platform: devicePlatform, name: deviceName } : null
  }),
  encode: ({ device, ...session }) => ({
    ...session,
    devicePlatform: device?.platform ?? null,
    deviceName: device?.name ?? null
  })
})

/** The user's columns beside the session's, named `user.<field>`. */
const userColumns = columnsAs("u", Object.keys(User.fields), "user")

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
    const decodeUser = Schema.decodeUnknownSync(User)
    const publicUrl = yield* PublicUrl
    // One round trip instead of two: every authenticated call reads both. A row that does not decode is a defect.
    const findWithUser = (id: string) =>
      sql<Record<string, unknown>>`
        SELECT s.*, ${sql.literal(userColumns)}
        FROM sessions s JOIN users u ON u.id = s.user_id AND u.deleted_at IS NULL
        WHERE s.id = ${id}`.pipe(
        Effect.map(([row]) => {
          if (row === undefined) return Option.none()
          const { user, ...session } = nested<{ readonly user: unknown }>(row)
          const decoded = decodeUser(user)
          return Option.some({
            session: decodeSession(session),
            user: { ...decoded, avatarUrl: shownAvatar(publicUrl, decoded.avatarUrl) }
          })
        })
      )

    return SessionRepo.of({
      insert: (session) => insert(session).pipe(Effect.orDie),
      findById: (id) => findById(id).pipe(Effect.orDie),
      findWithUser: (id) => findWithUser(id).pipe(Effect.orDie),
      // The first revocation is the one that counts.
      revoke: (id, at) =>
        sql`UPDATE sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      revokeOwned: (userId, id, at) =>
        sql`
          UPDATE sessions SET revoked_at = ${at}
          WHERE id = ${id} AND user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${at}
          RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      revokeOthers: (userId, keepId, at) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = ${at}
          WHERE user_id = ${userId} AND id <> ${keepId} AND revoked_at IS NULL AND expires_at > ${at}
          RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      revokeAll: (userId, at) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = ${at}
          WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${at}
          RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      lockLive: (id, at) =>
        sql`
          SELECT id FROM sessions WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${at}
          FOR SHARE`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      touch: (id, at) =>
        sql`UPDATE sessions SET last_used_at = ${at} WHERE id = ${id} AND last_used_at < ${at}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
)
