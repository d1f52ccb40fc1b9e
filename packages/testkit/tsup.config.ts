import { defineConfig } from "tsup"

/*
 * The published package. @talab/http-server is private (TypeScript sources, never published), so the server
 * is bundled into testkit; its own runtime dependencies stay external and are testkit's dependencies (native
 * sharp, PGlite's WebAssembly and data files, and the @effect/* set must be loaded from node_modules).
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  noExternal: ["@talab/http-server", "@talab/contract"],
  // Loaded only for FILE_STORE=s3: an optional peer, never bundled.
  external: ["@aws-sdk/client-s3"],
  dts: {
    // Resolved through a path (not node_modules), so rollup-plugin-dts inlines the server's types testkit's
    // API mentions (AppSettings) instead of importing them from a package that is never published.
    compilerOptions: {
      paths: {
        "@talab/http-server": ["../http-server/src/index.ts"],
        "@talab/contract": ["../contract/src/index.ts"]
      }
    }
  },
  // Reference.ts resolves files with import.meta.url; the CJS build needs it shimmed.
  shims: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  platform: "node",
  removeNodeProtocol: false,
  outDir: "dist"
})
