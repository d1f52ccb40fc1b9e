import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { NodeContext } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { FileStore } from "@talab/core"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import * as DatabaseFileStore from "../src/adapters/files/DatabaseFileStore.js"
import * as LocalFileStore from "../src/adapters/files/LocalFileStore.js"
import * as MemoryFileStore from "../src/adapters/files/MemoryFileStore.js"
import * as S3FileStore from "../src/adapters/files/S3FileStore.js"
import { freshPostgresDatabase } from "./db/support/databases.js"
import { startS3Server } from "./support/s3.js"

const bytesOf = (text: string) => new TextEncoder().encode(text)

const UNSAFE_KEYS = [
  "",
  ".",
  "..",
  "../escape.webp",
  "a/b.webp",
  "a\\b.webp",
  ".hidden",
  "space in.webp",
  "x".repeat(129)
]

/** Runs in a fresh temp directory, removed afterwards; hands back its path. */
const withTempDirectory = <A, E, R>(use: (directory: string) => Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const directory = yield* Effect.orDie(fs.makeTempDirectoryScoped({ prefix: "file-store-test-" }))
      return yield* use(directory)
    })
  ).pipe(Effect.provide(NodeContext.layer))

const useLocalStore = <A, E>(directory: string, use: Effect.Effect<A, E, FileStore>) =>
  use.pipe(Effect.provide(LocalFileStore.layer({ directory }).pipe(Layer.provide(NodeContext.layer), Layer.orDie)))

/** What every FileStore must do, whichever adapter provides it. */
const fileStoreContract = (name: string, provide: <A, E>(use: Effect.Effect<A, E, FileStore>) => Effect.Effect<A, E>) =>
  describe(`${name} (FileStore contract)`, () => {
    it.effect("gives back the bytes and content type that were put", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          const bytes = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 1, 2, 255])
          yield* store.put("avatar-1.webp", { bytes, contentType: "image/webp" })

          const stored = yield* store.get("avatar-1.webp")

          expect(Option.isSome(stored)).toBe(true)
          const file = Option.getOrThrow(stored)
          expect(Array.from(file.bytes)).toEqual(Array.from(bytes))
          expect(file.contentType).toBe("image/webp")
        })
      )
    )

    it.effect("gives None for a key never put", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          expect(yield* store.get("nothing-here.webp")).toEqual(Option.none())
        })
      )
    )

    it.effect("replaces the file when a key is put again", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          yield* store.put("note.bin", { bytes: bytesOf("first"), contentType: "text/plain" })
          yield* store.put("note.bin", { bytes: bytesOf("second"), contentType: "application/json" })

          const file = Option.getOrThrow(yield* store.get("note.bin"))

          expect(new TextDecoder().decode(file.bytes)).toBe("second")
          expect(file.contentType).toBe("application/json")
        })
      )
    )

    it.effect("deletes a file, leaves the others, and takes a key with no file as done", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          yield* store.put("old.webp", { bytes: bytesOf("old"), contentType: "image/webp" })
          yield* store.put("new.webp", { bytes: bytesOf("new"), contentType: "image/webp" })

          yield* store.delete("old.webp")
          yield* store.delete("old.webp")
          yield* store.delete("never-put.webp")

          expect(yield* store.get("old.webp")).toEqual(Option.none())
          expect(Option.map(yield* store.get("new.webp"), (f) => new TextDecoder().decode(f.bytes))).toEqual(
            Option.some("new")
          )
        })
      )
    )

    it.effect("keeps what was stored when the caller later changes its buffer", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          const bytes = bytesOf("original")
          yield* store.put("kept.txt", { bytes, contentType: "text/plain" })
          bytes.fill(0)

          const file = Option.getOrThrow(yield* store.get("kept.txt"))

          expect(new TextDecoder().decode(file.bytes)).toBe("original")
        })
      )
    )

    it.effect("dies on keys that are not simple file names, for put, get and delete alike", () =>
      provide(
        Effect.gen(function* () {
          const store = yield* FileStore
          for (const key of UNSAFE_KEYS) {
            const putExit = yield* Effect.exit(store.put(key, { bytes: bytesOf("x"), contentType: "text/plain" }))
            const getExit = yield* Effect.exit(store.get(key))
            const deleteExit = yield* Effect.exit(store.delete(key))
            const exits: ReadonlyArray<Exit.Exit<unknown>> = [putExit, getExit, deleteExit]
            for (const exit of exits) {
              expect(Exit.isFailure(exit) && Cause.isDie(exit.cause), `key ${JSON.stringify(key)}`).toBe(true)
              if (Exit.isFailure(exit)) {
                expect(Cause.squash(exit.cause)).toBeInstanceOf(Cause.IllegalArgumentException)
              }
            }
          }
        })
      )
    )
  })

fileStoreContract("MemoryFileStore", (use) => Effect.provide(use, MemoryFileStore.layer))
fileStoreContract("LocalFileStore", (use) => withTempDirectory((directory) => useLocalStore(directory, use)))

// The stores every instance shares: one database and one S3-compatible server for the whole file.
const databaseStore = ManagedRuntime.make(
  DatabaseFileStore.layer.pipe(Layer.provide(freshPostgresDatabase), Layer.orDie)
)
afterAll(() => databaseStore.dispose())
fileStoreContract("DatabaseFileStore", (use) => Effect.provide(use, databaseStore))

let s3: Awaited<ReturnType<typeof startS3Server>> | undefined
let s3Store: ManagedRuntime.ManagedRuntime<FileStore, never> | undefined
beforeAll(async () => {
  s3 = await startS3Server("talab-file-store-test")
  s3Store = ManagedRuntime.make(S3FileStore.layer(s3.options))
}, 30_000)
afterAll(async () => {
  await s3Store?.dispose()
  await s3?.stop()
})
fileStoreContract("S3FileStore", (use) => Effect.suspend(() => Effect.provide(use, s3Store!)))

describe("isSafeFileKey", () => {
  it("accepts server-made names and refuses paths, dot names and odd characters", () => {
    expect(LocalFileStore.isSafeFileKey("0b7c1f9e-2d4a-4c59-9d0e-5d1f0e7a9b21.webp")).toBe(true)
    expect(LocalFileStore.isSafeFileKey("user_42.avatar.v2.webp")).toBe(true)
    expect(LocalFileStore.isSafeFileKey("x".repeat(128))).toBe(true)
    for (const key of UNSAFE_KEYS) expect(LocalFileStore.isSafeFileKey(key), JSON.stringify(key)).toBe(false)
  })
})

describe("LocalFileStore on disk", () => {
  it.effect("creates a missing directory and leaves only the file and its content type there", () =>
    withTempDirectory((root) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const directory = path.join(root, "data", "uploads")

        yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) =>
            store.put("a.webp", { bytes: bytesOf("webp"), contentType: "image/webp" })
          )
        )

        expect(new TextDecoder().decode(yield* fs.readFile(path.join(directory, "a.webp")))).toBe("webp")
        // No temp file is left behind by the write-then-rename.
        expect((yield* fs.readDirectory(directory)).sort()).toEqual([".a.webp.content-type", "a.webp"])
      })
    )
  )

  it.effect("deletes a file together with its content type", () =>
    withTempDirectory((directory) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) =>
            Effect.zipRight(
              store.put("gone.webp", { bytes: bytesOf("w"), contentType: "image/webp" }),
              store.delete("gone.webp")
            )
          )
        )
        expect(yield* fs.readDirectory(directory)).toEqual([])
      })
    )
  )

  it.effect("finds files again through a new store over the same directory", () =>
    withTempDirectory((directory) =>
      Effect.gen(function* () {
        yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) =>
            store.put("kept.png", { bytes: bytesOf("png"), contentType: "image/png" })
          )
        )

        const file = yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) => store.get("kept.png"))
        )

        expect(Option.map(file, (f) => f.contentType)).toEqual(Option.some("image/png"))
        expect(Option.map(file, (f) => new TextDecoder().decode(f.bytes))).toEqual(Option.some("png"))
      })
    )
  )

  it.effect("infers the content type from the extension when none was stored beside the file", () =>
    withTempDirectory((directory) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        yield* fs.writeFile(path.join(directory, "copied-in.webp"), bytesOf("w"))
        yield* fs.writeFile(path.join(directory, "copied-in.blob"), bytesOf("b"))

        const [webp, blob] = yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) => Effect.all([store.get("copied-in.webp"), store.get("copied-in.blob")]))
        )

        expect(Option.map(webp, (f) => f.contentType)).toEqual(Option.some("image/webp"))
        expect(Option.map(blob, (f) => f.contentType)).toEqual(Option.some("application/octet-stream"))
      })
    )
  )

  it.effect("writes nothing outside its directory for an unsafe key", () =>
    withTempDirectory((root) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const directory = path.join(root, "uploads")

        const exit = yield* useLocalStore(
          directory,
          Effect.flatMap(FileStore, (store) =>
            store.put("../escape.webp", { bytes: bytesOf("x"), contentType: "image/webp" })
          )
        ).pipe(Effect.exit)

        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(yield* fs.exists(path.join(root, "escape.webp"))).toBe(false)
        expect(yield* fs.readDirectory(directory)).toEqual([])
      })
    )
  )
})
