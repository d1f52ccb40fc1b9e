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
