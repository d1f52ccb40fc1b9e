import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

const allTests = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"]

/**
 * The tests that need no database, no server, no Redis and no child process: `pnpm test:unit` runs them in
 * seconds without the global setup below. Named by file (with `**` so a file moved into a feature folder keeps its
 * place); a file not named here runs with the integration tests, so a new or moved one is never left out.
 */
export const unitTests = [
  "packages/core/test/**/*.test.ts",
  "packages/contract/test/api-reference.test.ts",
  "packages/contract/test/api-validators.test.ts",
  "packages/contract/test/error-codes.test.ts",
  "packages/contract/test/int-param.test.ts",
  "packages/contract/test/messages.test.ts",
  "packages/contract/test/problems.test.ts",
  "packages/client-sdk/test/frames.test.ts",
  "packages/client-sdk/test/pagination.test.ts",
  "packages/client-sdk/test/retry.test.ts",
  "packages/client-sdk/test/types.test.ts",
  "packages/client-sdk/test/units.test.ts",
  "packages/http-server/test/**/avatar.test.ts",
  "packages/http-server/test/**/decode-gate.test.ts",
  "packages/http-server/test/**/search-gate.test.ts",
  "packages/http-server/test/**/miss-flights.test.ts",
  "packages/http-server/test/**/json-body.test.ts",
  "packages/http-server/test/**/network-prefix.test.ts",
  "packages/http-server/test/**/Backoff.test.ts",
  "packages/http-server/test/**/Content.test.ts",
  "packages/http-server/test/**/realtime-connection.test.ts",
  "packages/http-server/test/**/request-pipeline.test.ts",
  "packages/http-server/test/**/session-cache.test.ts",
  "packages/http-server/test/**/tokens.test.ts",
  "packages/http-server/test/**/validation-details.test.ts",
  "packages/http-server/test/**/write-batches.test.ts",
  "examples/embed-core/test/**/*.test.ts"
]

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
    projects: [
      { extends: true, test: { name: "unit", include: unitTests } },
      {
        extends: true,
        test: {
          name: "integration",
          include: allTests,
          exclude: ["**/node_modules/**", ...packagingTests, ...unitTests],
          // One bundle of the server for the suites that start it as a child process, built in the background
          // from the start, and one migrated PostgreSQL template and PGlite dump per run, copied by each suite
          // (see the files); and the admin console's page, which a server run from the sources serves.
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
      }
    ]
  }
})
