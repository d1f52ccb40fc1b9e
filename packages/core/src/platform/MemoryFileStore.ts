import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { FileStore, type StoredFile } from "./FileStore.js"

// Bytes are copied in and out so that a caller mutating its buffer cannot change what is stored.
const copyOf = (file: StoredFile): StoredFile => ({ bytes: Uint8Array.from(file.bytes), contentType: file.contentType })

/** Makes a {@link FileStore} in a `Map`: empty, and gone with the process. */
export const makeMemoryFileStore: Effect.Effect<FileStore["Type"]> = Effect.sync(() => {
  const files = new Map<string, StoredFile>()
  return FileStore.of({
    put: (key, file) => Effect.sync(() => void files.set(key, copyOf(file))),
    get: (key) => Effect.sync(() => Option.map(Option.fromNullable(files.get(key)), copyOf)),
    delete: (key) => Effect.sync(() => void files.delete(key))
  })
})

/** {@link FileStore} in memory; each build of the layer starts empty. */
export const MemoryFileStore: Layer.Layer<FileStore> = Layer.effect(FileStore, makeMemoryFileStore)
