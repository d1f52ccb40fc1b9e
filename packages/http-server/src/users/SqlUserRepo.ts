import { SqlClient, SqlSchema } from "@effect/sql"
import { snakeCaseKeys, User, UserRepo } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { REQUEST_LISTS, sellerTag, userTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { PublicUrl, shownAvatar, storedAvatar } from "./AvatarUrl.js"

const UserRow = snakeCaseKeys(User.fields)

export const SqlUserRepo = Layer.effect(
  UserRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const publicUrl = yield* PublicUrl
    const reads = yield* makeReadsChanged
    const shown = (user: User) => ({ ...user, avatarUrl: shownAvatar(publicUrl, user.avatarUrl) })
    const stored = (user: User) => ({ ...user, avatarUrl: storedAvatar(user.avatarUrl) })

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (id) => sql`SELECT * FROM users WHERE id = ${id} AND deleted_at IS NULL`
    })
    const findByPhone = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (phoneNumber) => sql`SELECT * FROM users WHERE phone_number = ${phoneNumber}`
    })
    /*
     * The new row, or the one already stored, in one round trip. The stored row is read in the statement's
     * snapshot, so it is missed when its insert committed while this one waited on the conflict; that rare
     * case reads it again (insertOrGet below).
     */
    const insertOrFind = SqlSchema.findOne({
      Request: UserRow,
      Result: UserRow,
      execute: (row) => sql`
        WITH inserted AS (
          INSERT INTO users ${sql.insert(row)} ON CONFLICT (phone_number) DO NOTHING RETURNING *
        )
        SELECT * FROM inserted
        UNION ALL
        SELECT * FROM users WHERE phone_number = ${row.phone_number} AND NOT EXISTS (SELECT 1 FROM inserted)`
    })
    // COALESCE keeps what is not given; is_admin, an operator's grant, is never among the columns written.
    const updateProfile = SqlSchema.findOne({
      Request: Schema.Struct({
        id: Schema.String,
        name: Schema.NullOr(Schema.String),
        language: Schema.NullOr(Schema.String)
      }),
      Result: UserRow,
      execute: ({ id, name, language }) => sql`
        UPDATE users SET name = COALESCE(${name}, name), language = COALESCE(${language}, language)
        WHERE id = ${id} AND deleted_at IS NULL RETURNING *`
    })
    // The old URL is read under the row lock the update takes, so racing uploads each learn their own predecessor.
    const replaceAvatar = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, avatarUrl: Schema.String }),
      Result: Schema.Struct({ replaced: Schema.NullOr(Schema.String) }),
      execute: ({ id, avatarUrl }) => sql`
        WITH old AS (SELECT avatar_url FROM users WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE)
        UPDATE users SET avatar_url = ${avatarUrl} FROM old WHERE users.id = ${id}
        RETURNING old.avatar_url AS replaced`
    })

    const erase = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, at: Schema.DateFromSelf }),
      Result: Schema.Struct({ erased: Schema.NullOr(Schema.String) }),
      execute: ({ id, at }) => sql`
        WITH old AS (SELECT avatar_url FROM users WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE)
        UPDATE users SET phone_number = NULL, name = NULL, avatar_url = NULL, is_admin = false, deleted_at = ${at}
        FROM old WHERE users.id = ${id}
        RETURNING old.avatar_url AS erased`
    })

    return UserRepo.of({
      findById: (id) => findById(id).pipe(Effect.map(Option.map(shown)), Effect.orDie),
      findByPhone: (phoneNumber) => findByPhone(phoneNumber).pipe(Effect.map(Option.map(shown)), Effect.orDie),
      insertOrGet: (user) =>
        insertOrFind(stored(user)).pipe(
          Effect.flatMap(Option.match({ onNone: () => findByPhone(user.phoneNumber), onSome: Effect.succeedSome })),
          Effect.flatten,
          Effect.map(shown),
          Effect.orDie
        ),
      updateProfile: (id, changes) =>
        updateProfile({ id, name: changes.name ?? null, language: changes.language ?? null }).pipe(
          Effect.map(Option.map(shown)),
          Effect.orDie
        ),
      replaceAvatar: (id, avatarUrl) =>
        replaceAvatar({ id, avatarUrl: storedAvatar(avatarUrl) ?? avatarUrl }).pipe(
          Effect.map(Option.map(({ replaced }) => replaced)),
          Effect.orDie
        ),
      // The erased name leaves every cached read that shows it: the user's requests, their seller profile, lists.
      erase: (id, at) =>
        erase({ id, at }).pipe(
          Effect.map(Option.map(({ erased }) => shownAvatar(publicUrl, erased))),
          Effect.orDie,
          Effect.tap(() => reads.changed([REQUEST_LISTS, userTag(id), sellerTag(id)]))
        )
    })
  })
)
