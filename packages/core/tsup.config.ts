import { defineConfig } from "tsup"

/** The published package: ESM and CJS with their own declarations; `effect` (a peer) stays external. */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2020",
  platform: "neutral",
  outDir: "dist"
})
