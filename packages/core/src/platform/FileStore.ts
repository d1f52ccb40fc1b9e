import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** A stored file's bytes and the MIME type it is served with (`image/webp`, …). */
export interface StoredFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/** Port: stores uploaded files under server-made keys. Adapters: local disk under DATA_DIR, in-memory. */
export class FileStore extends Context.Tag("@talab/core/FileStore")<
  FileStore,
  {
    readonly put: (key: string, file: StoredFile) => Effect.Effect<void>
    readonly get: (key: string) => Effect.Effect<Option.Option<StoredFile>>
    /** Removes the file under `key`; a key with no file is no error. */
    readonly delete: (key: string) => Effect.Effect<void>
  }
>() {}
