import { FileStore, type StoredFile } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { requireSafeFileKey } from "./LocalFileStore.js"

// Bytes are copied in and out so that a caller mutating its buffer cannot change what is stored.
const copyOf = (file: StoredFile): StoredFile => ({ bytes: Uint8Array.from(file.bytes), contentType: file.contentType })

/** A {@link FileStore} in a `Map`, gone with the process. Refuses the same unsafe keys as the disk store. */
const make: Effect.Effect<FileStore["Type"]> = Effect.sync(() => {
  const files = new Map<string, StoredFile>()
  return FileStore.of({
    put: (key, file) =>
      requireSafeFileKey(key).pipe(Effect.zipRight(Effect.sync(() => void files.set(key, copyOf(file))))),
    get: (key) =>
      requireSafeFileKey(key).pipe(
        Effect.zipRight(Effect.sync(() => Option.map(Option.fromNullable(files.get(key)), copyOf)))
      ),
    delete: (key) => requireSafeFileKey(key).pipe(Effect.zipRight(Effect.sync(() => void files.delete(key))))
  })
})

/** {@link FileStore} in memory; each build of the layer starts empty. */
export const layer: Layer.Layer<FileStore> = Layer.effect(FileStore, make)
