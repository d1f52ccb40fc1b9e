import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import * as TestRun from "./test-run.js"

/*
 * The run's migrated databases (test-run.ts) for test support code. Without the global setup (another vitest
 * config) a suite gets an empty database and the server migrates it, as before.
 */

const run = () => inject("talabTestRun") as TestRun.TestRun | undefined

/** A new PostgreSQL database, already migrated, for one suite; drop it with the returned function. */
export const createMigratedPostgresDatabase = (prefix: string) => TestRun.createPostgresDatabase(run(), prefix)

/** A tarball of a migrated PGlite for an in-memory database to load, when the run has made one. */
export const migratedPgliteDump = async (): Promise<Blob | undefined> => {
  const current = run()
  return current === undefined ? undefined : TestRun.migratedPgliteDump(current)
}

/** A tarball of a PGlite after initdb and before the migrations, when the run has made one. */
export const initializedPgliteDump = async (): Promise<Blob | undefined> => {
  const current = run()
  return current === undefined ? undefined : TestRun.initializedPgliteDump(current)
}

/**
 * A new `DATA_DIR` for the embedded database on disk: a copy of the run's migrated one, or an empty temporary
 * directory (the server migrates it) without the run's global setup. The run's teardown removes it.
 */
export const migratedDataDir = async (): Promise<string> => {
  const current = run()
  return current === undefined ? mkdtemp(join(tmpdir(), "talab-data-")) : TestRun.copyMigratedDataDir(current)
}

/**
 * A new `DATA_DIR` whose embedded database has been through initdb but no migration: a copy of the run's, or an
 * empty temporary directory (initdb runs at the first open) without the run's global setup. The run's teardown
 * removes it.
 */
export const initializedDataDir = async (): Promise<string> => {
  const current = run()
  return current === undefined ? mkdtemp(join(tmpdir(), "talab-data-")) : TestRun.copyInitializedDataDir(current)
}

/** The run's migrated `DATA_DIR`, made by the global setup, for synchronous callers to copy; not to be changed. */
export const migratedDataDirToCopy = (): string => {
  const current = run()
  if (current === undefined) throw new Error("no test run: the global setup test-run.global.ts did not run")
  return TestRun.migratedDataDirPath(current)
}

interface ServerDatabaseOptions {
  readonly databaseUrl?: string
  readonly dataDir?: string
  readonly databaseDump?: Blob
}

/**
 * Test server options (`startTestServer`'s) that start an in-memory database from the run's migrated dump
 * rather than an empty one; options naming another database are answered unchanged.
 */
export const withMigratedDump = async <O extends ServerDatabaseOptions>(options: O): Promise<O> => {
  if (options.databaseUrl !== undefined || options.dataDir !== undefined || options.databaseDump !== undefined) {
    return options
  }
  const databaseDump = await migratedPgliteDump()
  return databaseDump === undefined ? options : { ...options, databaseDump }
}
