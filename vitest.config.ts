import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

/**
 * The unit and adapter tests of core, contract and http-server, run each in a fresh worker thread, so a fresh copy of
 * every module, Effect included: several rely on Effect's TestClock (`@effect/vitest`), which finds the clock of an
 * earlier file's tests instead when a process has run other files before (core's memory.test.ts, then
 * http-server's adapters/sms.test.ts, shows it).
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
    // Two pools, side by side. The end-to-end files share worker processes (`forks`, not isolated): a process
    // loads Effect, the platform and the whole server once for all the files it runs, instead of once per file
    // (that load was a third of the run's CPU). Vitest isolates a pool as a whole, whatever a project's own
    // `isolate` says, so the unit files get a pool of their own (`threads`, isolated: a new thread per file).
    // Vitest's default on a 2-core machine is one worker; five in all keep both cores busy while most of a
    // file's time is spent waiting on PostgreSQL, child processes and sockets.
    poolOptions: {
      // Not isolated, tinypool needs as many workers at least as at most: with fewer, it terminates an idle
      // worker mid-run and the run fails.
      forks: { isolate: false, maxForks: 3, minForks: 3 },
      threads: { isolate: true, maxThreads: 2, minThreads: 1 }
    },
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: "unit", include: isolatedTests, pool: "threads", isolate: true } },
      {
        extends: true,
        test: {
          name: "end-to-end",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...packagingTests, ...isolatedTests],
          // Every suite keeps to its own database, ports and Redis prefix, and leaves no global changed: the
          // files that share a process do not see each other.
          isolate: false
        }
      }
    ]
  }
})
