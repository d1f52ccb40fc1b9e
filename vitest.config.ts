import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...packagingTests],
    testTimeout: 30_000,
    // Hooks start servers and databases: seconds of CPU each, many more on a loaded machine.
    hookTimeout: 120_000,
    // One bundle of the server for the suites that start it as a child process, built in the background from the
    // start, and one migrated PostgreSQL template and PGlite dump per run, copied by each suite (see the files).
    globalSetup: [
      "apps/server/test/support/server-build.global.ts",
      "packages/http-server/test/support/test-run.global.ts"
    ],
    // A worker process runs many files and keeps their modules: it loads Effect, the platform and the whole
    // server once for all of them, instead of once per file (that load was a third of the run's CPU). Every
    // suite keeps to its own database, ports and Redis prefix and leaves no global changed, so files sharing a
    // process do not see each other. (@effect/vitest's `layer()` did change the shared `it`: see the patch
    // named in pnpm-workspace.yaml.)
    pool: "forks",
    isolate: false,
    poolOptions: {
      // Vitest's default on a 2-core machine is one worker; four keep both cores busy while most of a file's
      // time is spent waiting on PostgreSQL, child processes and sockets. Not isolated, tinypool needs as many
      // workers at least as at most: with fewer, it terminates an idle worker mid-run and the run fails.
      forks: { maxForks: 4, minForks: 4 }
    },
    sequence: { concurrent: false }
  }
})
