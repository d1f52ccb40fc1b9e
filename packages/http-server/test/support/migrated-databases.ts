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
