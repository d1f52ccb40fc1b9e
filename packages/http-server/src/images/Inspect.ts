import { SqlClient } from "@effect/sql"
import { FileStore, type ImageHolderKind } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** One stored image as a test sees it: its row and the bytes of its two files (null where a file is missing). */
export interface StoredImage {
  readonly id: string
  readonly ownerId: string
  readonly holderKind: ImageHolderKind | null
  readonly holderId: string | null
  readonly position: number | null
  readonly width: number
  readonly height: number
  readonly contentType: string
  readonly createdAt: Date
  readonly bytes: Uint8Array | null
  readonly thumbnailBytes: Uint8Array | null
}

/** Reads every stored image with its files, for the testkit: what the database and the FILE_STORE hold. */
export class ImageInspector extends Effect.Service<ImageInspector>()("Images/Inspector", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const files = yield* FileStore
    const bytesOf = (key: string) =>
      Effect.map(files.get(key), (file) => Option.getOrNull(Option.map(file, (found) => found.bytes)))
    const all = Effect.gen(function* () {
      const rows = yield* sql<
        Omit<StoredImage, "bytes" | "thumbnailBytes"> & { fileKey: string; thumbnailKey: string }
      >`
        SELECT id, owner_id AS "ownerId", holder_kind AS "holderKind", holder_id AS "holderId", position, width,
               height, content_type AS "contentType", created_at AS "createdAt", file_key AS "fileKey",
               thumbnail_key AS "thumbnailKey"
        FROM images ORDER BY created_at, id`.pipe(Effect.orDie)
      return yield* Effect.forEach(rows, ({ fileKey, thumbnailKey, ...row }) =>
        Effect.map(Effect.all([bytesOf(fileKey), bytesOf(thumbnailKey)]), ([bytes, thumbnailBytes]) => ({
          ...row,
          bytes,
          thumbnailBytes
        }))
      )
    })
    return { all } as const
  })
}) {}
