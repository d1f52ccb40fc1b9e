// Builds the console into a folder (default dist/): src/main.tsx bundled with Preact and the SDK's REST client
// for browsers (esbuild, minified, no source map), the stylesheet and the page copied. The server serves that
// folder at /admin/ (index.html) and /admin/assets/* (everything under assets/): http-server's
// server/AdminConsole.ts. apps/server's tsup config calls this to put the console beside the server's bundle.
//
//   node scripts/build.mjs [outDir]      prints each file's size, raw and gzipped
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

const consoleDir = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** Where the server looks for the console when it runs from the workspace's sources. */
export const defaultOutDir = join(consoleDir, "dist")

/** Bundles the console into `outDir` (emptied first); answers the files written, with their sizes. */
export const buildConsole = async (outDir = defaultOutDir) => {
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(join(outDir, "assets"), { recursive: true })
  await build({
    entryPoints: [join(consoleDir, "src", "main.tsx")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    outfile: join(outDir, "assets", "app.js"),
    logLevel: "warning"
  })
  copyFileSync(join(consoleDir, "src", "app.css"), join(outDir, "assets", "app.css"))
  copyFileSync(join(consoleDir, "src", "index.html"), join(outDir, "index.html"))
  return ["index.html", "assets/app.js", "assets/app.css"].map((file) => {
    const bytes = readFileSync(join(outDir, file))
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? defaultOutDir)
  const files = await buildConsole(outDir)
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
  for (const { file, bytes, gzip } of files)
    console.log(`${file.padEnd(16)} ${kib(bytes).padStart(10)}  gzip ${kib(gzip)}`)
  console.log(`admin console built in ${relative(process.cwd(), outDir) || "."}`)
}
