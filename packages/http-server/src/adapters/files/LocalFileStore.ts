import { randomUUID } from "node:crypto"
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { FileStore, type StoredFile } from "@talab/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** Where a {@link layer} keeps its files. */
export interface LocalFileStoreOptions {
  /** Created when missing, e.g. `${DATA_DIR}/uploads`. */
  readonly directory: string
}

// Keys never start with a dot: that rules out "." and "..", and leaves dot names free for our own
// side files, which therefore can never collide with a stored key.
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** Whether `key` is a plain file name (letters, digits, `.`, `_`, `-`, not starting with a dot) that is safe on disk. */
export const isSafeFileKey = (key: string): boolean => SAFE_KEY.test(key)

/** Dies when `key` is not a safe file name: keys are made by the server, so a bad one is a bug, not bad input. */
export const requireSafeFileKey = (key: string): Effect.Effect<void> =>
  isSafeFileKey(key)
    ? Effect.void
    : Effect.die(new Cause.IllegalArgumentException(`unsafe file key: ${JSON.stringify(key)}`))

const CONTENT_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  webp: "image/webp",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  json: "application/json",
  txt: "text/plain"
}

/** A content type for `key` from its extension; `application/octet-stream` when unknown. */
const contentTypeFromExtension = (key: string): string => {
  const extension = key.includes(".") ? key.slice(key.lastIndexOf(".") + 1).toLowerCase() : ""
  return CONTENT_TYPE_BY_EXTENSION[extension] ?? "application/octet-stream"
}

const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

/** A {@link FileStore} over one directory of the local disk. */
const make = (
  options: LocalFileStoreOptions
): Effect.Effect<FileStore["Type"], PlatformError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const directory = path.resolve(options.directory)
    yield* fs.makeDirectory(directory, { recursive: true })

    const dataPath = (key: string) => path.join(directory, key)
    const contentTypePath = (key: string) => path.join(directory, `.${key}.content-type`)

    // Written to a temp name in the same directory and renamed over the target, so a reader sees
    // the old file or the new one, never half of one. The sync makes the rename land on whole data.
    const writeAtomically = (target: string, bytes: Uint8Array) => {
      const temp = path.join(directory, `.${path.basename(target)}.${randomUUID()}.tmp`)
      return Effect.scoped(
        Effect.gen(function* () {
          const file = yield* fs.open(temp, { flag: "wx" })
          yield* file.writeAll(bytes)
          yield* file.sync
        })
      ).pipe(
        Effect.zipRight(fs.rename(temp, target)),
        Effect.onError(() => fs.remove(temp, { force: true }).pipe(Effect.ignore))
      )
    }

    const readIfPresent = <A>(read: Effect.Effect<A, PlatformError>): Effect.Effect<Option.Option<A>, PlatformError> =>
      read.pipe(
        Effect.map(Option.some),
        Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<A>()))
      )

    const put = (key: string, file: StoredFile) =>
      requireSafeFileKey(key).pipe(
        // The content type goes first, so whoever finds the data also finds its type.
        Effect.zipRight(writeAtomically(contentTypePath(key), new TextEncoder().encode(file.contentType))),
        Effect.zipRight(writeAtomically(dataPath(key), file.bytes)),
        Effect.orDie,
        Effect.withSpan("LocalFileStore.put", { attributes: { key } })
      )

    const get = (key: string) =>
      Effect.gen(function* () {
        yield* requireSafeFileKey(key)
        const bytes = yield* readIfPresent(fs.readFile(dataPath(key)))
        if (Option.isNone(bytes)) return Option.none<StoredFile>()
        const contentType = yield* readIfPresent(fs.readFileString(contentTypePath(key)))
        return Option.some<StoredFile>({
          bytes: bytes.value,
          contentType: Option.getOrElse(contentType, () => contentTypeFromExtension(key))
        })
      }).pipe(Effect.orDie, Effect.withSpan("LocalFileStore.get", { attributes: { key } }))

    // The data goes first, so nobody finds data without its type; a type file left alone is harmless.
    const remove = (key: string) =>
      requireSafeFileKey(key).pipe(
        Effect.zipRight(fs.remove(dataPath(key), { force: true })),
        Effect.zipRight(fs.remove(contentTypePath(key), { force: true })),
        Effect.orDie,
        Effect.withSpan("LocalFileStore.delete", { attributes: { key } })
      )

    return FileStore.of({ put, get, delete: remove })
  })

/** {@link FileStore} on local disk under `directory`, which is created when missing. */
export const layer = (
  options: LocalFileStoreOptions
): Layer.Layer<FileStore, PlatformError, FileSystem.FileSystem | Path.Path> => Layer.effect(FileStore, make(options))
