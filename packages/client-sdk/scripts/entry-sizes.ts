/*
 * What each entry of the package costs an app: the built ESM entry bundled with what it imports (openapi-fetch
 * included, ws left out: browsers and React Native have their own WebSocket), minified, then gzipped.
 * Run after `pnpm build`: `pnpm --filter @talab/client-sdk sizes`.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
// esbuild comes with tsup; resolved from there rather than listed as a dependency of its own.
const esbuild: {
  build(options: object): Promise<{ outputFiles: Array<{ contents: Uint8Array }> }>
} = createRequire(createRequire(import.meta.url).resolve("tsup"))("esbuild")

const entries = ["index", "rest", "realtime", "errors", "types"]
const rows: Array<string> = ["| entry | minified | gzip |", "|---|---:|---:|"]
for (const entry of entries) {
  const result = await esbuild.build({
    entryPoints: [join(packageDir, "dist", `${entry}.js`)],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    external: ["ws"],
    write: false
  })
  const code = result.outputFiles[0]!.contents
  const name = entry === "index" ? "@talab/client-sdk" : `@talab/client-sdk/${entry}`
  rows.push(
    `| \`${name}\` | ${(code.length / 1024).toFixed(1)} KiB | ${(gzipSync(code).length / 1024).toFixed(1)} KiB |`
  )
}
console.log(rows.join("\n"))
