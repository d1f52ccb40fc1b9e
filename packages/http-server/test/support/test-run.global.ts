import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import {
  dropDatabase,
  ensureTemplate,
  migratedDataDir,
  migratedPgliteDump,
  type TestRun,
  templateMarker,
  templateName
} from "./test-run.js"

/**
 * vitest global setup: a directory and an id for this run (see test-run.ts), and after the last file, the
 * run's template database and directory removed.
 */
export default async function setup(project: TestProject) {
  const run: TestRun = {
    directory: await mkdtemp(join(tmpdir(), "talab-test-run-")),
    id: `${process.pid}_${randomBytes(4).toString("hex")}`
  }
  project.provide("talabTestRun", run)
  // The PGlite dumps and the migrated DATA_DIR made once, here, before the workers start: made by the first
  // suites that need them, they were made by several workers at once on a clean clone (no recorded durations, so
  // the largest files first, and most of them start an embedded server), each spending the CPU of a migration.
  // The PostgreSQL template at the same time (its migrations run mostly in PostgreSQL's process); a run without
  // PostgreSQL goes on, and the first suite that needs it reports why it cannot have it.
  const template = ensureTemplate(run).catch(() => undefined)
  await migratedPgliteDump(run)
  await migratedDataDir(run)
  await template
  return async () => {
    if (existsSync(templateMarker(run))) await dropDatabase(templateName(run))
    await rm(run.directory, { recursive: true, force: true })
  }
}
