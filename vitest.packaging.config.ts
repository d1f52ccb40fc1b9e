import { defineConfig } from "vitest/config"

/**
 * The packaging checks, run by `pnpm test:packaging` (and CI) apart from `pnpm test`: each builds a package with
 * tsup, packs it, installs the tarball into a scratch app and loads it from plain Node and TypeScript, or
 * regenerates the SDK from the server's document. They test what we publish, not how the API behaves, and take
 * minutes of child processes.
 */
export const packagingTests = ["packages/*/test/package.test.ts", "packages/client-sdk/test/generate.test.ts"]

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
