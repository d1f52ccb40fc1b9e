import { randomUUID } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Ref } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { DatabaseOptions } from "../../src/db/Database.js"
import { MigratedDatabaseLayer } from "../../src/db/Migrations.js"
import { runCli } from "../../src/ops/Cli.js"
import { ControlChannelLive } from "../../src/ops/Control.js"
import { migratedDataDir } from "../support/migrated-databases.js"
import { repositoryContract } from "./repositoryContract.js"

/*
 * `talab backup` taken from a running server while it writes (transactions of several statements, one after
 * another), then `talab restore` into another DATA_DIR: the restored database must be one the repositories
 * work on, whole.
 */
const restoredBackup = Layer.unwrapScoped(
  Effect.gen(function* () {
    const work = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "talab-backup-"))),
      (directory) => Effect.promise(() => rm(directory, { recursive: true, force: true }))
    )
    // The server's DATA_DIR: a copy of the run's migrated embedded database.
    const source = yield* Effect.promise(migratedDataDir)
    const target = join(work, "target")
    const file = join(work, "talab.tar.gz")

    yield* Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const written = yield* Ref.make(0)
        const writer = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const id = randomUUID()
              const phone = `+9665${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`
              yield* sql`INSERT INTO users (id, phone_number) VALUES (${id}, ${phone}) ON CONFLICT DO NOTHING`
              yield* sql`INSERT INTO sessions (id, user_id, expires_at) VALUES (${randomUUID()}, ${id}, now())`
            })
          )
          .pipe(Effect.zipRight(Ref.update(written, (n) => n + 1)), Effect.forever, Effect.fork)
        // Some writes before and during the copy.
        while ((yield* Ref.get(written)) < 20) yield* Effect.sleep("20 millis")
        const backup = yield* Effect.promise(() => Effect.runPromise(runCli(["backup", file], { DATA_DIR: source })))
        if (backup.code !== 0) return yield* Effect.dieMessage(`backup: ${backup.stderr.join(" ")}`)
        yield* Fiber.interrupt(writer)
      }).pipe(
        Effect.provide(
          ControlChannelLive.pipe(
            Layer.provideMerge(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir: source }))),
            Layer.provide(AppConfig.layer({ dataDir: source }))
          )
        )
      )
    )
    const restore = yield* Effect.promise(() => Effect.runPromise(runCli(["restore", file], { DATA_DIR: target })))
    if (restore.code !== 0) return yield* Effect.dieMessage(`restore: ${restore.stderr.join(" ")}`)
    return MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir: target }))
  }).pipe(Effect.orDie)
)

repositoryContract(
  "SQL repositories on an embedded database restored from a backup taken during writes",
  restoredBackup
)
