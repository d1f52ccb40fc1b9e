import { existsSync, statSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { UserRepo } from "@talab/core"
import { Effect, Either, Fiber, Redacted } from "effect"
import { DatabaseLayer, DatabaseOptions, databaseOptionsFromUrl } from "../../src/db/Database.js"
import { migrations as allMigrations, MigratedDatabaseLayer } from "../../src/db/Migrations.js"
import { parseArray, parseTimestamp, pgTypes } from "../../src/db/PgTypes.js"
import { migratedDataDir } from "../support/migrated-databases.js"
import { repositoriesOver, unmigratedPgliteInMemory } from "./support/databases.js"
import { aUser } from "./support/fixtures.js"

describe("databaseOptionsFromUrl", () => {
  it("reads DATABASE_URL as the operator contract says", () => {
    expect(databaseOptionsFromUrl(undefined, "./data")).toEqual(
      Either.right(DatabaseOptions.Embedded({ dataDir: "./data" }))
    )
    expect(databaseOptionsFromUrl("  ", "./data")).toEqual(
      Either.right(DatabaseOptions.Embedded({ dataDir: "./data" }))
    )
    expect(databaseOptionsFromUrl("memory://", "./data")).toEqual(Either.right(DatabaseOptions.Memory()))
    for (const url of ["postgres://u:p@db:5432/talab", "postgresql://db/talab"]) {
      const options = Either.getOrThrow(databaseOptionsFromUrl(url, "./data"))
      expect(options._tag === "Postgres" && Redacted.value(options.url)).toBe(url)
    }
  })

  it("refuses anything else with a one-line message that names the variable and hides the URL", () => {
    const refused = databaseOptionsFromUrl("mysql://root:s3cret@db/talab", "./data")
    expect(Either.isLeft(refused)).toBe(true)
    const message = Either.isLeft(refused) ? refused.left.message : ""
    expect(message).toBe("DATABASE_URL must be unset, memory:// or a postgres:// URL; got a mysql: URL")
    expect(message).not.toContain("s3cret")
    expect(Either.isLeft(databaseOptionsFromUrl("talab.db", "./data"))).toBe(true)
  })
})

describe("pg type parsers", () => {
  it("turn timestamps with any offset, or none (local time), into the right instant", () => {
    expect(parseTimestamp("2025-03-01 10:00:00.123456+00")).toEqual(new Date("2025-03-01T10:00:00.123Z"))
    expect(parseTimestamp("2025-03-01 15:30:00+05:30")).toEqual(new Date("2025-03-01T10:00:00.000Z"))
    expect(parseTimestamp("2025-03-01 07:00:00-03")).toEqual(new Date("2025-03-01T10:00:00.000Z"))
    expect(parseTimestamp("2025-03-01 10:00:00")).toEqual(new Date(2025, 2, 1, 10, 0, 0))
    expect(parseTimestamp("0044-03-15 12:00:00+00 BC").getUTCFullYear()).toBe(-43)
  })

  it("parse arrays with NULLs, quoted elements and nesting", () => {
    expect(parseArray((v) => v)('{a,NULL,"b,c","say \\"hi\\"","NULL"}')).toEqual(["a", null, "b,c", 'say "hi"', "NULL"])
    expect(parseArray(Number)("{{1,2},{3,4}}")).toEqual([
      [1, 2],
      [3, 4]
    ])
    expect(parseArray(Number)("{}")).toEqual([])
  })

  it("leave unknown types as text", () => {
    expect(pgTypes.getTypeParser(2950, "text")("0b6d…")).toBe("0b6d…")
  })
})

const socketIsClosed = (path: string) =>
  Effect.async<boolean>((resume) => {
    const socket = connect({ path })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.once("error", () => resume(Effect.succeed(true)))
  })

describe("embedded database", () => {
  it.scopedLive(
    "keeps its data across two lifetimes under DATA_DIR, migrates once, and answers numbers and Dates",
    () =>
      Effect.gen(function* () {
        // A copy of the run's migrated DATA_DIR: initdb and the migrations on an empty one are `talab migrate`'s
        // test (cli.test.ts).
        const dataDir = yield* Effect.promise(migratedDataDir)
        const database = repositoriesOver(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir })))
        const user = aUser()

        const socketDirectory = yield* Effect.gen(function* () {
          yield* (yield* UserRepo).insertOrGet(user)
          const { host, port } = (yield* PgClient.PgClient).config
          const directory = host ?? ""
          // Reached through a Unix socket only this user can open, never a TCP port.
          expect(directory.startsWith("/")).toBe(true)
          expect(statSync(directory).mode & 0o777).toBe(0o700)
          expect(statSync(join(directory, `.s.PGSQL.${port}`)).mode & 0o777).toBe(0o600)
          return directory
        }).pipe(Effect.provide(database))
        expect(existsSync(join(dataDir, "pgdata", "PG_VERSION"))).toBe(true)
        expect(yield* socketIsClosed(join(socketDirectory, ".s.PGSQL.5432"))).toBe(true)
        expect(existsSync(socketDirectory)).toBe(false)

        const restarted = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const found = yield* (yield* UserRepo).findById(user.id)
          const migrations = yield* sql`SELECT migration_id FROM effect_sql_migrations`
          const [values] = yield* sql`
            SELECT 1999.99::numeric(12, 2) AS price, count(*) AS total, 7::int4 AS small,
                   '2025-03-01 15:30:00+05:30'::timestamptz AS at, '{"a": [1]}'::jsonb AS payload,
                   ARRAY[1.5, 2]::numeric[] AS prices, true AS flag
            FROM users`
          return { found, migrations: migrations.length, values }
        }).pipe(Effect.provide(database))

        expect(restarted.found._tag === "Some" && restarted.found.value).toEqual(user)
        expect(restarted.migrations).toBe(Object.keys(allMigrations).length)
        expect(restarted.values).toEqual({
          price: 1999.99,
          total: 1,
          small: 7,
          at: new Date("2025-03-01T10:00:00.000Z"),
          payload: { a: [1] },
          prices: [1.5, 2],
          flag: true
        })
      }),
    180_000
  )
})

describe("buffer pool", () => {
  const sharedBuffers = Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ shared_buffers: string }>`SHOW shared_buffers`
  )

  it.scopedLive(
    "is small in memory, where the files it caches are in memory too, in each way one starts",
    () =>
      Effect.gen(function* () {
        const [empty] = yield* sharedBuffers.pipe(Effect.provide(DatabaseLayer(DatabaseOptions.Memory())))
        const [fromDump] = yield* sharedBuffers.pipe(Effect.provide(unmigratedPgliteInMemory))
        expect([empty?.shared_buffers, fromDump?.shared_buffers]).toEqual(["16MB", "16MB"])
      }),
    120_000
  )

  it.scopedLive(
    "keeps PostgreSQL's size on disk, where a miss reads the file",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* Effect.promise(migratedDataDir)
        const [onDisk] = yield* sharedBuffers.pipe(Effect.provide(DatabaseLayer(DatabaseOptions.Embedded({ dataDir }))))
        expect(onDisk?.shared_buffers).toBe("128MB")
      }),
    120_000
  )

  it.scopedLive(
    "takes the small pool on disk for one `talab` command, which opens the directory, reads a few rows and closes it",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* Effect.promise(migratedDataDir)
        const [forOneCommand] = yield* sharedBuffers.pipe(
          Effect.provide(DatabaseLayer(DatabaseOptions.Embedded({ dataDir, forOneCommand: true })))
        )
        expect(forOneCommand?.shared_buffers).toBe("16MB")
      }),
    120_000
  )
})

describe("embedded database, a transaction's statement in flight when its fiber is interrupted", () => {
  it.scopedLive(
    "lets the statement finish instead of waiting 5 s for a second connection to cancel it",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // In a transaction the one connection stays held until the rollback, after the cancel.
        const statement = yield* Effect.fork(sql.withTransaction(sql`SELECT pg_sleep(0.5)`))
        yield* Effect.sleep("100 millis")
        const started = Date.now()
        yield* Fiber.interrupt(statement)
        // The statement's own half second, not the pool's connect timeout (the cancel found no free connection).
        expect(Date.now() - started).toBeLessThan(3_000)
        expect(yield* sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
      }).pipe(Effect.provide(unmigratedPgliteInMemory)),
    60_000
  )
})
