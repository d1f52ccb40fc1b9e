import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "tsup"

/** The admin console's build (apps/admin-console), run with plain Node: it loads esbuild from its own package. */
const consoleBuild = fileURLToPath(new URL("../admin-console/scripts/build.mjs", import.meta.url))

/*
 * The server as Node runs it in production: `dist/main.js` (the server) and `dist/cli.js` (the `talab`
 * command). The workspace packages (@talab/core, @talab/http-server) are TypeScript sources, so they are
 * bundled in; every other runtime dependency stays external and is listed in this package's
 * `dependencies`, which `pnpm deploy --prod` installs (native sharp, PGlite's WebAssembly, the @effect/* set).
 * The admin console is built beside them, into `dist/admin-console/`, where the server serves it from at
 * /admin/ (http-server's server/AdminConsole.ts): so the deployed folder and the image carry it.
 */
export default defineConfig((overrides) => {
  const outDir = overrides.outDir ?? "dist"
  return {
    entry: ["src/main.ts", "src/cli.ts"],
    format: ["esm"],
    noExternal: [/^@talab\//],
    clean: true,
    sourcemap: true,
    target: "node20",
    platform: "node",
    removeNodeProtocol: false,
    outDir,
    onSuccess: async () => {
      // Its size report goes to stderr, so the output of `pnpm talab …` stays the command's own.
      execFileSync(process.execPath, [consoleBuild, join(outDir, "admin-console")], {
        stdio: ["ignore", process.stderr, "inherit"]
      })
    }
  }
})
