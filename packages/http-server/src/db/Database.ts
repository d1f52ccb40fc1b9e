import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import Pg from "pg"
import { watchPool } from "../telemetry/Metrics.js"
import { BackgroundSqlClient } from "./BackgroundSqlClient.js"
import { pgTypes } from "./PgTypes.js"

/**
 * Where the data lives: PGlite on disk under `dataDir/pgdata`, PGlite in memory (empty, or starting from a
 * `dumpDataDir` tarball: tests load one migrated database instead of running initdb and the migrations each time),
 * or a PostgreSQL server.
 */
export type DatabaseOptions = Data.TaggedEnum<{
  /** `forOneCommand`: opened for one `talab` command and closed, so it takes the small buffer pool (below). */
  Embedded: { readonly dataDir: string; readonly forOneCommand?: boolean }
  Memory: {}
  MemoryFromDump: { readonly dump: Blob }
  Postgres: { readonly url: Redacted.Redacted<string> }
}>
export const DatabaseOptions = Data.taggedEnum<DatabaseOptions>()

export class InvalidDatabaseUrl extends Data.TaggedError("InvalidDatabaseUrl")<{ readonly scheme: string | null }> {
  override get message() {
    const got = this.scheme === null ? "a value without a scheme" : `a ${this.scheme}: URL`
    return `DATABASE_URL must be unset, memory:// or a postgres:// URL; got ${got}`
  }
}

/**
 * DATABASE_URL as the operator contract reads it: unset (or empty) → embedded PGlite under `dataDir`,
 * `memory://` → PGlite in memory, `postgres://` or `postgresql://` → that server.
 */
export const databaseOptionsFromUrl = (
  url: string | undefined,
  dataDir: string
): Either.Either<DatabaseOptions, InvalidDatabaseUrl> => {
  const trimmed = url?.trim() ?? ""
  if (trimmed === "") return Either.right(DatabaseOptions.Embedded({ dataDir }))
  if (trimmed === "memory://") return Either.right(DatabaseOptions.Memory())
  if (/^postgres(ql)?:\/\//i.test(trimmed))
    return Either.right(DatabaseOptions.Postgres({ url: Redacted.make(trimmed) }))
  // Only the scheme is echoed: the rest of a URL may hold a password.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1] ?? null
  return Either.left(new InvalidDatabaseUrl({ scheme }))
}

const CONNECT_TIMEOUT = Duration.seconds(5)

const startFailed = (what: string) => (cause: unknown) => new SqlError({ cause, message: `Could not start ${what}` })

/*
 * An in-memory database's files are already in memory, so a buffer pool over them caches what a miss reads with
 * a copy: it starts with 16 MB instead of initdb's 128 MB, which PGlite zeroes at every start (about a third of a
 * start's CPU, and as much memory). On disk a server's pool keeps its size: there a miss reads the file. A
 * `talab` command on disk reads a few rows and closes the database: it takes the small pool too, and opens in
 * about half the CPU.
 */
const smallPoolStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

const startPglite = (dataDir: string | undefined, dump: Blob | undefined, smallPool: boolean) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        if (dataDir !== undefined) await mkdir(dataDir, { recursive: true })
        const db =
          dataDir !== undefined
            ? new PGlite(dataDir, smallPool ? { startParams: smallPoolStartParams } : {})
            : new PGlite({ startParams: smallPoolStartParams, ...(dump !== undefined ? { loadDataDir: dump } : {}) })
        await db.waitReady
        return db
      },
      catch: startFailed("the embedded database (PGlite)")
    }),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

/**
 * A directory only this user can enter (mkdtemp creates it 0700), for the embedded database's socket. Not in
 * DATA_DIR: a Unix socket path is limited to about 100 bytes, and a socket left by a killed process there would
 * block the next start.
 */
const privateSocketDirectory = Effect.acquireRelease(
  Effect.tryPromise({
    try: () => mkdtemp(join(tmpdir(), "talab-db-")),
    catch: startFailed("the embedded database socket directory")
  }),
  (directory) => Effect.promise(() => rm(directory, { recursive: true, force: true })).pipe(Effect.ignore)
)

/** The file name node-postgres looks for in a socket directory, for the port it is given. */
const SOCKET_PORT = 5432
const socketFileName = `.s.PGSQL.${SOCKET_PORT}`

/*
 * PGlite is a single session: the socket server queues every statement and keeps a transaction on the
 * connection that opened it. One pooled connection keeps that model honest. The server accepts a few
 * more sockets so a reconnect (or PgClient's LISTEN client) is never refused.
 *
 * It listens on a Unix socket in a directory only this user can enter, never on a TCP port: PGlite asks
 * no password, so whoever reaches the socket is the database's superuser.
 */
const servePglite = (db: PGlite, directory: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const path = join(directory, socketFileName)
        const server = new PGLiteSocketServer({ db, path, maxConnections: 4 })
        await server.start()
        await chmod(path, 0o600)
        return server
      },
      catch: startFailed("the embedded database socket")
    }),
    (server) => Effect.promise(() => server.stop()).pipe(Effect.ignore)
  )

interface PoolOptions {
  readonly url?: Redacted.Redacted<string>
  readonly host?: string
  readonly port?: number
  readonly username?: string
  readonly database?: string
  readonly maxConnections?: number
  /** Runs `SELECT 1` before the layer is built, so a wrong URL stops the start (default true). */
  readonly checkAtStart?: boolean
  /**
   * Cancels the statement of an interrupted fiber with `pg_cancel_backend` on another connection (default true).
   * Off for the embedded database: its pool has one connection, held by that very statement, so the cancel
   * waited the whole connect timeout (5 s, at every shutdown that met a statement) and then failed.
   */
  readonly cancelOnInterrupt?: boolean
}

/** The most connections a pool opens when not told otherwise (node-postgres' own default). */
const DEFAULT_MAX_CONNECTIONS = 10

/** The background pool's size: the dispatcher runs one statement at a time, a second covers its device clean-up. */
const BACKGROUND_CONNECTIONS = 2

/*
 * The pg pool is made here rather than by PgClient so its use can be read for the metrics (connections in
 * use, idle, callers waiting); otherwise as PgClient.layer would make it: checked with one query at start,
 * ended when the layer closes.
 */
const pooledClient = (options: PoolOptions) =>
  PgClient.layerFromPool({
    applicationName: "@effect/sql-pg",
    types: pgTypes,
    acquire: Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new Pg.Pool({
          connectionString: options.url ? Redacted.value(options.url) : undefined,
          host: options.host,
          port: options.port,
          user: options.username,
          database: options.database,
          max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
          application_name: "@effect/sql-pg",
          types: pgTypes,
          // Without it a server that does not answer (rather than refusing) would hold requests forever.
          connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT)
        })
        // An idle client's error (server restart) is reported again by the query that next uses the pool.
        pool.on("error", () => {})
        if (options.cancelOnInterrupt === false) {
          // Without a backend process id, @effect/sql-pg does not try to cancel the query of an interrupted fiber.
          pool.on("connect", (client) => {
            ;(client as { processID?: number | undefined }).processID = undefined
          })
        }
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    ).pipe(
      Effect.tap((pool) =>
        options.checkAtStart === false
          ? Effect.void
          : Effect.tryPromise({
              try: () => pool.query("SELECT 1"),
              catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
            }).pipe(
              Effect.timeoutFail({
                duration: Duration.seconds(5),
                onTimeout: () =>
                  new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
              })
            )
      ),
      Effect.tap((pool) =>
        Effect.acquireRelease(
          Effect.sync(() =>
            watchPool(() => ({
              inUse: pool.totalCount - pool.idleCount,
              idle: pool.idleCount,
              waiting: pool.waitingCount,
              max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
            }))
          ),
          (unwatch) => Effect.sync(unwatch)
        )
      )
    )
  })

/** A pool of BACKGROUND_CONNECTIONS for BackgroundSqlClient; it connects on first use (the main pool checked the URL). */
const backgroundPool = (url: Redacted.Redacted<string>) =>
  Layer.scoped(
    BackgroundSqlClient,
    Effect.map(
      Layer.build(pooledClient({ url, maxConnections: BACKGROUND_CONNECTIONS, checkAtStart: false })),
      Context.get(SqlClient.SqlClient)
    )
  )

/** The PGlite instance behind an embedded database (absent on PostgreSQL), for `talab backup`. */
export class EmbeddedPglite extends Context.Tag("@talab/http-server/EmbeddedPglite")<
  EmbeddedPglite,
  { readonly db: PGlite; readonly dataDir: string | undefined }
>() {}

const embeddedLayer = (dataDir: string | undefined, dump?: Blob, smallPool = false) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const db = yield* startPglite(dataDir, dump, smallPool)
      const embedded = Layer.succeed(EmbeddedPglite, { db, dataDir })
      const directory = yield* privateSocketDirectory
      yield* servePglite(db, directory)
      return pooledClient({
        // node-postgres takes a host starting with "/" as the directory of a Unix socket.
        host: directory,
        port: SOCKET_PORT,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        cancelOnInterrupt: false
      }).pipe((main) => BackgroundSqlClient.sameAsMain.pipe(Layer.provideMerge(main)), Layer.merge(embedded))
    })
  )

/**
 * `SqlClient` (and `PgClient`) for the chosen database. One SQL code path serves all three: PGlite is
 * reached over the Postgres wire protocol on a private Unix socket. Closing the layer closes the pool, the
 * socket server, its directory and PGlite, in that order.
 */
export const DatabaseLayer = (options: DatabaseOptions) =>
  DatabaseOptions.$match(options, {
    Embedded: ({ dataDir, forOneCommand }) => embeddedLayer(join(dataDir, "pgdata"), undefined, forOneCommand),
    Memory: () => embeddedLayer(undefined),
    MemoryFromDump: ({ dump }) => embeddedLayer(undefined, dump),
    Postgres: ({ url }) => Layer.merge(pooledClient({ url }), backgroundPool(url))
  })
