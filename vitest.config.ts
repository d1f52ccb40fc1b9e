import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One migrated PostgreSQL template and PGlite dump per run, copied by each suite (see the file).
    globalSetup: ["packages/http-server/test/support/test-run.global.ts"],
    pool: "forks",
    sequence: { concurrent: false }
  }
})
