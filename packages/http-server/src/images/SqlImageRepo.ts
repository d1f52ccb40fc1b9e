import { SqlClient, SqlSchema } from "@effect/sql"
import { Image, ImageRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { textArrayLiteral } from "../db/PgArrays.js"

/** Image as stored: the entity under its column names. */
const ImageRow = snakeCaseKeys(Image.fields)

/** A transaction-scoped lock of one owner's images, by a key no other advisory lock of the server uses. */
const OWNER_LOCK_SPACE = "talab:images:"

export const SqlImageRepo = Layer.effect(
  ImageRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const insert = SqlSchema.void({
      Request: ImageRow,
      execute: (row) => sql`INSERT INTO images ${sql.insert(row)}`
    })
    const lockUnattached = SqlSchema.findAll({
      Request: Schema.Struct({ ownerId: Schema.String, ids: Schema.Array(Schema.String) }),
      Result: ImageRow,
      execute: ({ ids, ownerId }) => sql`
        SELECT * FROM images
        WHERE id IN ${sql.in(ids)} AND owner_id = ${ownerId} AND holder_kind IS NULL
        ORDER BY id
        FOR UPDATE`
    })
    return ImageRepo.of({
      lockOwner: (ownerId) =>
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${OWNER_LOCK_SPACE + ownerId}, 0))`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      countUnattached: (ownerId) =>
        sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM images WHERE owner_id = ${ownerId} AND holder_kind IS NULL`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.orDie
        ),
      insert: (image) => insert(image).pipe(Effect.orDie),
      lockUnattached: (ownerId, ids) => lockUnattached({ ownerId, ids }).pipe(Effect.orDie),
      attach: (ids, holder) =>
        sql`
          UPDATE images SET holder_kind = ${holder.kind}, holder_id = ${holder.id}, position = chosen.position
          FROM (SELECT id, (n - 1)::int AS position FROM unnest(${textArrayLiteral(ids)}::uuid[]) WITH ORDINALITY AS c (id, n)) chosen
          WHERE images.id = chosen.id`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
