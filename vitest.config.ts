import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...packagingTests],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One migrated PostgreSQL template and PGlite dump per run, copied by each suite (see the file).
    globalSetup: ["packages/http-server/test/support/test-run.global.ts"],
    pool: "forks",
    // Vitest's default on a 2-core machine is one worker: one file at a time, while most of a file's time is
    // spent waiting on PostgreSQL, child processes and sockets. Four files at a time keep both cores busy.
    maxWorkers: 4,
    minWorkers: 1,
    sequence: { concurrent: false }
  }
})
