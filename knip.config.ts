import type { KnipConfig } from "knip"

/*
 * `pnpm knip`: files, dependencies and exports nothing uses. Knip's own plugins already read the package
 * manifests (exports, bin, scripts), the vitest and tsup configs and the test files; the entries below are
 * those only a shell script, a child process or a bundler call names.
 *
 * The published packages (core, contract, client-sdk, testkit) keep every export reachable from their entry
 * files: that is their public API, used outside this repository. The private ones (http-server, the server,
 * the examples) have no reader outside it, so an export of theirs nothing imports is reported there too.
 */
const config: KnipConfig = {
  // Started by .ci/run and CI's tests from outside Node (runuser, pgbouncer, redis-server are Debian's).
  ignoreBinaries: ["runuser", "pgbouncer", "redis-server"],
  // Written by openapi-typescript from the documents (`pnpm --filter @talab/client-sdk generate`): its
  // top-level types are there whether the SDK reads them or not.
  ignoreIssues: { "packages/client-sdk/src/generated/*.ts": ["types"] },
  workspaces: {
    ".": {
      // Run by .ci/run and .ci/tarballs, which knip does not read.
      entry: ["scripts/*.ts", ".ci/*.mjs", ".ci/tarball-app/*.ts", ".ci/registry-app/*.ts"]
    },
    "apps/server": {
      // `pnpm bench` runs every file of bench/scenarios/ in its own process; explain.ts, load.ts and
      // stack-floor.ts are run by hand or by a scenario as a child process.
      entry: ["src/main.ts", "src/cli.ts", "bench/*.ts", "bench/*.mjs", "bench/scenarios/*.ts"],
      includeEntryExports: true,
      // The build bundles the workspace packages, not their dependencies: those the bundle loads at run time
      // are this package's own, for `pnpm deploy --prod` to install.
      ignoreDependencies: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "libphonenumber-js"]
    },
    "packages/http-server": {
      includeEntryExports: true
    },
    "packages/testkit": {
      // Run by plain-node.test.ts in a child process, as an app would load the package.
      entry: ["test/fixtures/*.mjs"],
      // The build bundles the private http-server and contract, not their dependencies: those the bundle loads
      // at run time are testkit's own.
      ignoreDependencies: [
        "@effect/sql-pg",
        "@electric-sql/pglite",
        "@electric-sql/pglite-socket",
        "ioredis",
        "jose",
        "libphonenumber-js",
        "pg",
        "sharp",
        "ws"
      ]
    },
    "examples/*": {
      includeEntryExports: true
    },
    "examples/web": {
      // Bundled for the browser by scripts/build.ts.
      entry: ["src/app.ts"],
      includeEntryExports: true
    }
  }
}

export default config
