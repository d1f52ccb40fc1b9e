import { SqlClient } from "@effect/sql"
import { FileStore, type StoredFile } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { requireSafeFileKey } from "./LocalFileStore.js"

/* The driver hands bytea back in Postgres' hex text form (`\x0a1b…`): the pool's parsers leave unknown types as text. */
const bytesOf = (value: unknown): Uint8Array =>
  typeof value === "string" && value.startsWith("\\x")
    ? new Uint8Array(Buffer.from(value.slice(2), "hex"))
    : new Uint8Array(value as Uint8Array)

/** A {@link FileStore} in the `stored_files` table: every instance on the same database serves every file. */
const make: Effect.Effect<FileStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const put = (key: string, file: StoredFile) =>
    requireSafeFileKey(key).pipe(
      Effect.zipRight(sql`
        INSERT INTO stored_files (key, content_type, bytes)
        VALUES (${key}, ${file.contentType}, ${Buffer.from(file.bytes)})
        ON CONFLICT (key) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes`),
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("DatabaseFileStore.put", { attributes: { key } })
    )

  const get = (key: string) =>
    requireSafeFileKey(key).pipe(
      Effect.zipRight(
        sql<{ content_type: string; bytes: unknown }>`SELECT content_type, bytes FROM stored_files WHERE key = ${key}`
      ),
      Effect.map(([row]) =>
        row === undefined
          ? Option.none<StoredFile>()
          : Option.some<StoredFile>({ bytes: bytesOf(row.bytes), contentType: row.content_type })
      ),
      Effect.orDie,
      Effect.withSpan("DatabaseFileStore.get", { attributes: { key } })
    )

  const remove = (key: string) =>
    requireSafeFileKey(key).pipe(
      Effect.zipRight(sql`DELETE FROM stored_files WHERE key = ${key}`),
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("DatabaseFileStore.delete", { attributes: { key } })
    )

  return FileStore.of({ put, get, delete: remove })
})

/** {@link FileStore} in PostgreSQL (migration 0008). */
export const layer: Layer.Layer<FileStore, never, SqlClient.SqlClient> = Layer.effect(FileStore, make)
