import { defineConfig } from "tsup"

/*
 * A compile check of the library as JavaScript (ESM, no declarations). Nothing imports this output: the
 * workspace runs the TypeScript sources, and the server (apps/server) bundles them into its own dist.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  clean: true,
  target: "node20",
  platform: "node",
  removeNodeProtocol: false,
  outDir: "dist"
})
