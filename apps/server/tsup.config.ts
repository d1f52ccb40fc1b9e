import { defineConfig } from "tsup"

/*
 * The server as Node runs it in production: `dist/main.js` (the server) and `dist/cli.js` (the `talab`
 * command). The workspace packages (@talab/core, @talab/http-server) are TypeScript sources, so they are
 * bundled in; every other runtime dependency stays external and is listed in this package's
 * `dependencies`, which `pnpm deploy --prod` installs (native sharp, PGlite's WebAssembly, the @effect/* set).
 */
export default defineConfig({
  entry: ["src/main.ts", "src/cli.ts"],
  format: ["esm"],
  noExternal: [/^@talab\//],
  clean: true,
  sourcemap: true,
  target: "node20",
  platform: "node",
  removeNodeProtocol: false,
  outDir: "dist"
})
