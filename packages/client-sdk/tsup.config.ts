import { defineConfig } from "tsup"

/** The published package, one entry per subpath: ESM and CJS with their own declarations, openapi-fetch and ws external. */
export default defineConfig({
  entry: ["src/index.ts", "src/errors.ts", "src/types.ts", "src/rest.ts", "src/realtime.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2020",
  platform: "neutral",
  outDir: "dist"
})
