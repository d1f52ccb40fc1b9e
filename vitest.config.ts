import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

/**
 * The unit and adapter tests of core, contract and http-server, run each in a fresh module graph: several rely on Effect's
 * TestClock (`@effect/vitest`), which finds the live clock instead when a worker has run other files before.
 */
const isolatedTests = [
  "packages/core/test/**/*.test.ts",
  "packages/contract/test/**/*.test.ts",
  "packages/http-server/test/**/*.test.ts"
]

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", ...packagingTests],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One migrated PostgreSQL template and PGlite dump per run, copied by each suite, and one bundle of the
    // server for the suites that start it as a child process (see the files).
    globalSetup: [
      "packages/http-server/test/support/test-run.global.ts",
      "apps/server/test/support/server-build.global.ts"
    ],
    pool: "forks",
    // Vitest's default on a 2-core machine is one worker: one file at a time, while most of a file's time is
    // spent waiting on PostgreSQL, child processes and sockets. Four files at a time keep both cores busy.
    maxWorkers: 4,
    // With isolate off (below), tinypool needs as many workers at least as at most: with fewer, it terminates an
    // idle worker mid-run and the run fails.
    minWorkers: 4,
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: "unit", include: isolatedTests, isolate: true } },
      {
        extends: true,
        test: {
          name: "end-to-end",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...packagingTests, ...isolatedTests],
          // Each worker loads Effect, the platform and the whole server (through the testkit) once for all the
          // files it runs, instead of once per file: that load was 40% of the workers' time. Every suite keeps to
          // its own database, ports and Redis prefix, and leaves no global changed.
          isolate: false
        }
      }
    ]
  }
})
