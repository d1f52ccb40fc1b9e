import { resolve } from "node:path"
import { Ids, RequestSettings } from "@talab/core"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { recordOperatorAction } from "../audit/AuditTrail.js"
import { SessionEvents } from "../auth/SessionEvents.js"
import { describeConfigError, isConfigError } from "../config/AppConfig.js"
import { redisPrefixFor } from "../config/RedisPrefix.js"
import { readVariable } from "../config/Settings.js"
import { DatabaseLayer, DatabaseOptions, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { SqlRepositoriesLayer } from "../db/Repositories.js"
import { publishSessionEnds, publishUserChanges } from "../realtime/RedisFanout.js"
import { fileStoreLayer } from "../server/Adapters.js"
import { AccountErasureLive } from "../users/Erasure.js"
import { restoreEmbedded } from "./Backup.js"
import { type Outcome, parseCommand, runCommand, USAGE } from "./Commands.js"
import { forward, runningServer } from "./Control.js"
import { OperatorRefused } from "./Operator.js"

const refusedOutcome = (message: string): Outcome => ({ code: 1, stdout: [], stderr: message.split("\n") })

/** The variables the commands read, as the server reads them (same defaults, same checks). */
const readEnvironment = Effect.all({
  databaseUrl: readVariable("DATABASE_URL"),
  dataDir: readVariable("DATA_DIR"),
  redisUrl: readVariable("REDIS_URL"),
  redisPrefix: readVariable("REDIS_PREFIX"),
  adminPhoneNumbers: readVariable("ADMIN_PHONE_NUMBERS"),
  retentionDays: readVariable("RETENTION_DAYS")
})

/**
 * What `talab users delete` runs on outside a server: core's workflows over the repositories, the file store the
 * settings name (as the server picks it) and the servers' channels to close the sockets, when there are any.
 */
const erasureOutsideServer = (
  onPostgres: boolean,
  dataDir: string,
  servers: {
    readonly endSessions?: (ids: ReadonlyArray<string>) => Effect.Effect<void>
    readonly usersChanged?: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  }
) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const fileStore = (yield* readVariable("FILE_STORE")) ?? (onPostgres ? "database" : "local")
      const s3 =
        fileStore === "s3"
          ? {
              bucket: (yield* readVariable("S3_BUCKET")) ?? "",
              region: (yield* readVariable("S3_REGION")) ?? (yield* readVariable("AWS_REGION")),
              endpoint: yield* readVariable("S3_ENDPOINT")
            }
          : undefined
      const ttlDays = yield* readVariable("REQUEST_TTL_DAYS")
      const sessionEvents = Layer.succeed(SessionEvents, {
        revoked: (id) => servers.endSessions?.([id]) ?? Effect.void,
        userChanged: (id) => servers.usersChanged?.([id]) ?? Effect.void
      })
      return AccountErasureLive.pipe(
        Layer.provide(
          Layer.mergeAll(
            SqlRepositoriesLayer,
            fileStoreLayer({ fileStore, dataDir, ...(s3 ? { s3 } : {}) }),
            sessionEvents,
            Layer.succeed(RequestSettings, { ttlDays }),
            Ids.Random
          )
        )
      )
    })
  )

/**
 * Records the restore in the restored database's audit log (migrated first: a backup may predate the log), so the
 * log that was restored goes on with the entry of what replaced everything after it.
 */
const recordRestore = (file: string, dataDir: string, report: ReadonlyArray<string>) =>
  recordOperatorAction({
    action: "database.restore",
    target: null,
    changes: { backup_file: { before: null, after: resolve(file) } }
  }).pipe(
    Effect.provide(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir, forOneCommand: true }))),
    Effect.as([...report, "recorded the restore in the audit log"]),
    Effect.catchAll((error) =>
      Effect.fail(
        new OperatorRefused({
          message: [...report, `but the restore could not be recorded in the audit log: ${String(error)}`].join("\n")
        })
      )
    )
  )

/**
 * `talab <args>`: runs the command on the database DATABASE_URL names. On the embedded database a running
 * server holds the data directory, so the command is handed to it (see Control.ts); `restore` needs it stopped.
 */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = process.env) =>
  Effect.gen(function* () {
    const parsed = parseCommand(args)
    if ("usage" in parsed) return { code: 2, stdout: [], stderr: [parsed.usage, ...USAGE] } as Outcome
    const settings = yield* readEnvironment
    const options = databaseOptionsFromUrl(settings.databaseUrl, settings.dataDir)
    if (options._tag === "Left") return refusedOutcome(options.left.message)
    const database =
      options.right._tag === "Embedded"
        ? DatabaseOptions.Embedded({ ...options.right, forOneCommand: true })
        : options.right
    const embeddedOnDisk = database._tag === "Embedded"
    const server = embeddedOnDisk ? yield* Effect.promise(() => runningServer(settings.dataDir)) : undefined

    if (parsed.name === "restore") {
      if (!embeddedOnDisk)
        return refusedOutcome(
          "restore is for the embedded database (DATABASE_URL unset); on PostgreSQL use pg_restore (docs/OPERATIONS.md)"
        )
      if (server !== undefined)
        return refusedOutcome(`the server (pid ${server.pid}) is running on ${settings.dataDir}: stop it first`)
      const now = new Date()
      return yield* restoreEmbedded(parsed.argument!, settings.dataDir, now).pipe(
        Effect.flatMap((stdout) => recordRestore(parsed.argument!, settings.dataDir, stdout)),
        Effect.map((stdout): Outcome => ({ code: 0, stdout, stderr: [] })),
        Effect.catchAll((refused: OperatorRefused) => Effect.succeed(refusedOutcome(refused.message)))
      )
    }
    if (server !== undefined) {
      return yield* Effect.tryPromise(() => forward(server, parsed.name, parsed.argument)).pipe(
        Effect.catchAll((error) =>
          Effect.succeed(
            refusedOutcome(
              `the server (pid ${server.pid}) holds ${settings.dataDir} but did not take the command: ${String(error.error)}`
            )
          )
        )
      )
    }
    // Sockets and session caches live in the servers: on Redis every instance hears it; on the embedded
    // database none is running.
    const redisUrl = settings.redisUrl
    // The servers' own channels: REDIS_PREFIX, or derived from the same database as theirs.
    const channelPrefix = `${redisPrefixFor(settings)}ws:`
    const servers =
      redisUrl !== undefined
        ? {
            endSessions: (ids: ReadonlyArray<string>) =>
              publishSessionEnds(redisUrl, channelPrefix, ids).pipe(Effect.orDie),
            usersChanged: (ids: ReadonlyArray<string>) =>
              publishUserChanges(redisUrl, channelPrefix, ids).pipe(Effect.orDie)
          }
        : embeddedOnDisk
          ? { endSessions: () => Effect.void, usersChanged: () => Effect.void }
          : {}
    const command = runCommand(parsed.name, parsed.argument, { ...settings, ...servers })
    return yield* (
      parsed.name === "users delete"
        ? Effect.provide(command, erasureOutsideServer(!embeddedOnDisk, settings.dataDir, servers))
        : command
    ).pipe(
      Effect.provide(DatabaseLayer(database as DatabaseOptions)),
      Effect.catchAll((error) => Effect.succeed(refusedOutcome(`cannot open the database: ${String(error)}`)))
    )
  }).pipe(
    Effect.catchAll((error) =>
      Effect.succeed(refusedOutcome(`talab: ${isConfigError(error) ? describeConfigError(error) : String(error)}`))
    ),
    Effect.withConfigProvider(
      ConfigProvider.fromMap(
        new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
      )
    )
  )
