import { defineConfig } from "tsup"

/*
 * The published package: ESM and CJS with their own declarations. `effect` and `@effect/platform` (peers) stay
 * external. The few values of @talab/core the contract names (the category, status and language literals, the
 * user type) are bundled in, so the contract depends on those two packages only and a client never installs
 * the domain.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  noExternal: ["@talab/core"],
  dts: {
    // Resolved through a path (not node_modules), so rollup-plugin-dts inlines the core types the contract names.
    compilerOptions: { paths: { "@talab/core": ["../core/src/index.ts"] } }
  },
  clean: true,
  sourcemap: true,
  target: "es2020",
  platform: "neutral",
  outDir: "dist"
})
