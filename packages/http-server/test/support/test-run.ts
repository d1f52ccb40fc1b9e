import { createHash, randomBytes } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer, Logger, Option, Redacted } from "effect"
import Pg from "pg"
import { DatabaseOptions, EmbeddedPglite } from "../../src/db/Database.js"
import { MigratedDatabaseLayer } from "../../src/db/Migrations.js"

/*
 * One migrated database per test run, copied for each suite, made by the global setup (test-run.global.ts)
 * before the workers start: a PostgreSQL template database the suites' databases are created from (CREATE
 * DATABASE … TEMPLATE; a worker that needs it first makes it when the setup could not), and for PGlite a tarball
 * of one after initdb, a tarball of a migrated one for the in-memory databases to load, and a migrated `DATA_DIR`
 * for the suites on disk to copy. The dumps are kept between runs too (see `dumpCache`); the global teardown
 * removes the run's own. A copy still runs the migrator, so a migration added since the copy was made is
 * applied to it like to any older database.
 *
 * No vitest import here: the global setup loads this module outside a test worker.
 */

/** What the global setup gives every test file of a run: a private directory and a name unique to the run. */
export interface TestRun {
  readonly directory: string
  readonly id: string
}

declare module "vitest" {
  export interface ProvidedContext {
    talabTestRun: TestRun
  }
}

/** The maintenance database of the PostgreSQL server the tests use. */
const maintenanceUrl = process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** The URL of another database on the same server. */
const databaseUrl = (name: string) => {
  const url = new URL(maintenanceUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs statements on the maintenance database over one connection of its own. */
const onMaintenanceDatabase = async <A>(work: (client: Pg.Client) => Promise<A>): Promise<A> => {
  const client = new Pg.Client({ connectionString: maintenanceUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Drops a database, disconnecting whoever is still on it. */
export const dropDatabase = (name: string) =>
  onMaintenanceDatabase((client) => client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`)).then(
    () => undefined
  )

const quiet = <A, E>(layer: Layer.Layer<A, E>) => layer.pipe(Layer.provide(Logger.remove(Logger.defaultLogger)))

const migrate = (options: DatabaseOptions) =>
  Effect.runPromise(Effect.scoped(Layer.build(quiet(MigratedDatabaseLayer(options)))))

/** The run's template database on PostgreSQL. */
export const templateName = (run: TestRun) => `talab_template_${run.id}`

/** Present in the run's directory once a suite has started making the template: the teardown then drops it. */
export const templateMarker = (run: TestRun) => join(run.directory, "postgres-template")

/** `make` run once per process (again after a failure), its promise shared by every caller. */
const once = <A>(make: (run: TestRun) => Promise<A>) => {
  let made: Promise<A> | undefined
  return (run: TestRun) => {
    if (made === undefined) {
      made = make(run).catch((error) => {
        made = undefined
        throw error
      })
    }
    return made
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/*
 * Templates a run killed before its teardown left behind, found by the process id in their names; only on a
 * server on this machine, where those ids mean something.
 */
const dropOrphanTemplates = async (client: Pg.Client) => {
  if (!["127.0.0.1", "localhost", "[::1]"].includes(new URL(maintenanceUrl).hostname)) return
  const templates = await client.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'talab_template_%'"
  )
  for (const { datname } of templates.rows) {
    const pid = Number(/^talab_template_(\d+)_/.exec(datname)?.[1])
    if (Number.isInteger(pid) && !isAlive(pid))
      await client.query(`DROP DATABASE IF EXISTS ${quoted(datname)} WITH (FORCE)`)
  }
}

/*
 * Under an advisory lock held by one connection, so that of the workers starting at once one migrates and the
 * others wait for it; a worker that dies releases the lock with its connection.
 */
export const ensureTemplate = once((run) =>
  onMaintenanceDatabase(async (client) => {
    const name = templateName(run)
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [name])
    try {
      const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
      if (found.rowCount === 0) {
        await dropOrphanTemplates(client)
        await writeFile(templateMarker(run), name)
        await client.query(`CREATE DATABASE ${quoted(name)}`)
        try {
          await migrate(DatabaseOptions.Postgres({ url: Redacted.make(databaseUrl(name)) }))
        } catch (error) {
          await client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`)
          throw error
        }
        // Nobody connects to it again: a connection would make CREATE DATABASE … TEMPLATE fail.
        await client.query(`ALTER DATABASE ${quoted(name)} WITH ALLOW_CONNECTIONS false`)
      }
      return name
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [name])
    }
  })
)

/**
 * A new PostgreSQL database for one suite, named with `prefix`: a copy of the run's migrated template (an empty
 * database outside a run, which the server migrates at start). Drop it with the returned function.
 */
export const createPostgresDatabase = async (run: TestRun | undefined, prefix: string) => {
  const name = `${prefix}${randomBytes(6).toString("hex")}`
  const template = run === undefined ? undefined : await ensureTemplate(run)
  await onMaintenanceDatabase((client) =>
    client.query(`CREATE DATABASE ${quoted(name)}${template === undefined ? "" : ` TEMPLATE ${quoted(template)}`}`)
  )
  return { name, url: databaseUrl(name), drop: () => dropDatabase(name) }
}

/** Writes `bytes` to `file` under a temporary name and renames it, so a reader never sees half of it. */
const writeWhole = async (file: string, bytes: Uint8Array) => {
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`
  await writeFile(temporary, bytes)
  await rename(temporary, file)
}

/*
 * The dumps are also kept between runs, under a key of what makes them: PGlite (its resolved path names its
 * version) and the sources of the migrations. A run after a change of either makes them again.
 */
const dumpCache = fileURLToPath(new URL("../../../../node_modules/.cache/talab-test-run/", import.meta.url))
const migrationsDirectory = fileURLToPath(new URL("../../src/db/migrations/", import.meta.url))
const dumpKey = (() => {
  let key: string | undefined
  return () => {
    if (key !== undefined) return key
    const hash = createHash("sha256").update(createRequire(import.meta.url).resolve("@electric-sql/pglite"))
    hash.update(readFileSync(fileURLToPath(new URL("../../src/db/Migrations.ts", import.meta.url))))
    for (const name of readdirSync(migrationsDirectory).sort())
      hash.update(name).update(readFileSync(join(migrationsDirectory, name)))
    key = hash.digest("hex").slice(0, 16)
    return key
  }
})()

/**
 * A `dumpDataDir` tarball kept in the run's directory under `name`: copied from the cache between runs, or made
 * by `make` and cached.
 */
const pgliteDump = (name: string, make: (run: TestRun) => Promise<Blob>) =>
  once(async (run) => {
    const file = join(run.directory, name)
    if (existsSync(file)) return new Blob([await readFile(file)])
    const cached = join(dumpCache, `${dumpKey()}-${name}`)
    if (existsSync(cached)) {
      const bytes = await readFile(cached)
      await writeWhole(file, bytes)
      return new Blob([bytes])
    }
    const dump = await make(run)
    const bytes = new Uint8Array(await dump.arrayBuffer())
    await writeWhole(file, bytes)
    await mkdir(dumpCache, { recursive: true })
    await writeWhole(cached, bytes)
    return dump
  })

/**
 * A PGlite after initdb and before any migration: what `new PGlite()` spends seconds of CPU on, loaded in a
 * fraction of that by the suites that run migrations themselves.
 */
export const initializedPgliteDump = pgliteDump("pglite-initialized.tar", async () => {
  const db = new PGlite()
  try {
    await db.waitReady
    return await db.dumpDataDir("none")
  } finally {
    await db.close()
  }
})

/**
 * A `dumpDataDir` tarball of a migrated in-memory PGlite, made once per run and kept in the run's directory (two
 * workers making it at once both write a whole one).
 */
export const migratedPgliteDump = pgliteDump("pglite-migrated.tar", async (run) => {
  const initialized = await initializedPgliteDump(run)
  return Effect.runPromise(
    Effect.serviceOption(EmbeddedPglite).pipe(
      Effect.flatMap((embedded) => Effect.promise(() => Option.getOrThrow(embedded).db.dumpDataDir("none"))),
      Effect.provide(quiet(MigratedDatabaseLayer(DatabaseOptions.MemoryFromDump({ dump: initialized }))))
    )
  )
})

/** Where the run keeps its migrated `DATA_DIR` (see `migratedDataDir`). */
export const migratedDataDirPath = (run: TestRun) => join(run.directory, "migrated-data-dir")

/**
 * A `DATA_DIR` in the run's directory at `path` whose embedded database (`pgdata`) is loaded from a dump, made
 * once per run; suites copy it rather than run initdb (seconds of CPU on disk, several times a load) there.
 */
const dataDirFromDump = (path: (run: TestRun) => string, dump: (run: TestRun) => Promise<Blob>) =>
  once(async (run) => {
    const directory = path(run)
    if (existsSync(directory)) return directory
    const scratch = `${directory}.${randomBytes(4).toString("hex")}.tmp`
    await mkdir(scratch)
    const db = new PGlite(join(scratch, "pgdata"), { loadDataDir: await dump(run) })
    await db.waitReady
    await db.close()
    try {
      await rename(scratch, directory)
    } catch (error) {
      // Another worker made it first: its copy is as good.
      if (!existsSync(directory)) throw error
      await rm(scratch, { recursive: true, force: true })
    }
    return directory
  })

/** A `DATA_DIR` whose embedded database is the run's migrated one; made by the global setup. */
export const migratedDataDir = dataDirFromDump(migratedDataDirPath, migratedPgliteDump)

/** A `DATA_DIR` whose embedded database has been through initdb and no migration, for `talab migrate`'s test. */
const initializedDataDir = dataDirFromDump((run) => join(run.directory, "initialized-data-dir"), initializedPgliteDump)

const copyOf = (source: (run: TestRun) => Promise<string>) => async (run: TestRun) => {
  const from = await source(run)
  const directory = await mkdtemp(join(run.directory, "data-"))
  await cp(from, directory, { recursive: true })
  return directory
}

/** A new `DATA_DIR` in the run's directory holding a copy of the run's migrated embedded database. */
export const copyMigratedDataDir = copyOf(migratedDataDir)

/** A new `DATA_DIR` in the run's directory holding a copy of an embedded database before any migration. */
export const copyInitializedDataDir = copyOf(initializedDataDir)
