import { defineConfig } from "vitest/config"

/**
 * The checks of what we publish, run by `pnpm test:packaging` (and CI) apart from `pnpm test`: each package built
 * with tsup, packed, installed into a scratch app and loaded from plain Node and TypeScript; the SDK regenerated
 * from the server's document; the SDK README's example compiled against its types; every export of the published
 * packages documented; the testkit started from a plain Node script. They test what we publish, not how the API
 * behaves, and take minutes of child processes and compilers.
 */
export const packagingTests = [
  "packages/*/test/package.test.ts",
  "packages/client-sdk/test/generate.test.ts",
  "packages/client-sdk/test/readme.test.ts",
  "packages/contract/test/documented-exports.test.ts",
  "packages/testkit/test/plain-node.test.ts"
]

export default defineConfig({
  test: {
    include: packagingTests,
    // CI runs them beside `pnpm test` at a lower priority, where they wait for the CPU: generous limits.
    testTimeout: 600_000,
    hookTimeout: 900_000,
    // One at a time: each is tsup and tsc, CPU-bound, so running two on two cores gains nothing.
    pool: "forks",
    maxWorkers: 1,
    minWorkers: 1
  }
})
