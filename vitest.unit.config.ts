import { defineConfig } from "vitest/config"
import { packagingTests } from "./vitest.packaging.config.js"

/**
 * The tests that need no database, no server, no Redis and no child process: `pnpm test:unit` runs them in
 * seconds, without `pnpm test`'s global setup (no server bundle, no databases). Named by file (with `**` so a
 * file moved into a feature folder keeps its place). `pnpm test` runs them too, in the same pool as the rest.
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
    name: "unit",
    include: unitTests,
    exclude: ["**/node_modules/**", ...packagingTests],
    testTimeout: 30_000,
    pool: "forks",
    poolOptions: { forks: { isolate: false } }
  }
})
