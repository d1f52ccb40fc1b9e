/*
 * Writes the server's own OpenAPI document to openapi.json and the TypeScript types generated from it
 * to src/generated/schema.ts, and the types of the WebSocket frames, generated from the frame schemas of the
 * server's AsyncAPI document (the schemas it decodes and encodes frames with), to src/generated/frames.ts, and the
 * error codes with their statuses to src/generated/errors.ts, all from @talab/contract, so the SDK and the server
 * cannot drift.
 *
 *   tsx scripts/generate.ts           regenerate the four files
 *   tsx scripts/generate.ts --check   regenerate in memory; exit 1 when a checked-in file is stale
 *   --root <dir>                      read and write under <dir> instead of this package (tests)
 */
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { generatedFiles } from "./render.js"

const argument = (name: string) => {
  const index = process.argv.indexOf(name)
  return index >= 0 ? process.argv[index + 1] : undefined
}
const packageDir = argument("--root") ?? join(dirname(fileURLToPath(import.meta.url)), "..")

const readOrEmpty = (file: string) => readFile(file, "utf8").catch(() => "")

const main = async () => {
  const check = process.argv.includes("--check")
  const outputs = await generatedFiles(packageDir)
  if (check) {
    const stale: Array<string> = []
    for (const output of outputs) {
      if ((await readOrEmpty(output.file)) !== output.text) stale.push(relative(process.cwd(), output.file))
    }
    if (stale.length > 0) {
      console.error(
        `The client SDK's generated files are stale against the server: ${stale.join(", ")}.\n` +
          "Run `pnpm --filter @talab/client-sdk generate` and commit the result."
      )
      process.exit(1)
    }
    console.log("The client SDK's generated files match the server's OpenAPI and AsyncAPI documents.")
    return
  }
  for (const output of outputs) {
    await mkdir(dirname(output.file), { recursive: true })
    await writeFile(output.file, output.text)
  }
  console.log(`Wrote ${outputs.map((o) => relative(process.cwd(), o.file)).join(", ")}.`)
}

await main()
