import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

const allTests = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"]

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", ...packagingTests],
    testTimeout: 30_000,
    // Hooks start servers and databases: seconds of CPU each, many more on a loaded machine.
    hookTimeout: 120_000,
    // A worker process runs many files and keeps their modules: it loads Effect, the platform and the whole
    // server once for all of them, instead of once per file (that load was a third of the run's CPU). Every
    // suite keeps to its own database, ports and Redis prefix and leaves no global changed, so files sharing a
    // process do not see each other. (@effect/vitest's `layer()` did change the shared `it`: see the patch
    // named in pnpm-workspace.yaml.)
    pool: "forks",
    poolOptions: {
      // Vitest's default on a 2-core machine is one worker; four keep both cores busy while most of a file's
      // time is spent waiting on PostgreSQL, child processes and sockets. Not isolated, tinypool needs as many
      // workers at least as at most: with fewer, it terminates an idle worker mid-run and the run fails.
      forks: { maxForks: 4, minForks: 4, isolate: false }
    },
    sequence: { concurrent: false },
    // Every test file in one project, so in one pool: vitest runs a project's files only after the previous
    // project's last one ended, and in new worker processes that load every module again. The unit tests (listed
    // in vitest.unit.config.ts, which `pnpm test:unit` runs without this setup) fill the gaps of the others here.
    include: allTests,
    // One bundle of the server for the suites that start it as a child process, built in the background from the
    // start, and one migrated PostgreSQL template and PGlite dump per run, copied by each suite (see the files);
    // and the admin console's page, which a server run from the sources serves.
    globalSetup: [
      "apps/server/test/support/server-build.global.ts",
      "apps/server/test/support/admin-console-build.global.ts",
      "packages/http-server/test/support/test-run.global.ts",
      "apps/server/test/support/document-checks.global.ts",
      "apps/server/test/support/server-build-ready.global.ts"
    ],
    // Every REST call and WebSocket frame of the end-to-end client is held to the served documents.
    setupFiles: ["apps/server/test/support/protocol-check.setup.ts"]
  }
})
