/*
 * Builds the page into dist/: app.ts bundled with the SDK for browsers (esbuild, which tsup brings), and the
 * HTML and CSS copied. Serve dist/ from any static server; open it with `?api=<the Talab server's origin>`.
 */
import { copyFileSync, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"

const exampleDir = resolve(import.meta.dirname, "..")
const out = join(exampleDir, "dist")

const esbuild: { build(options: object): Promise<unknown> } = createRequire(
  createRequire(join(exampleDir, "..", "..", "package.json")).resolve("tsup")
)("esbuild")

/** Bundles the page into `folder` (default dist/). */
export const buildPage = async (folder = out) => {
  mkdirSync(folder, { recursive: true })
  await esbuild.build({
    entryPoints: [join(exampleDir, "src", "app.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    // The SDK's workspace entry is TypeScript; the optional `ws` peer is for Node only.
    external: ["ws"],
    outfile: join(folder, "app.js"),
    logLevel: "warning"
  })
  for (const file of ["index.html", "app.css"]) copyFileSync(join(exampleDir, "src", file), join(folder, file))
  return folder
}

if (process.argv[1] === import.meta.filename) {
  console.log(`Built ${await buildPage()}`)
}
