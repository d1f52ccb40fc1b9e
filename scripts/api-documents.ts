/*
 * Writes the documents the server serves, /api/v1/openapi.json and /api/v1/asyncapi.json, into a folder
 * (default .api/), for Redocly to lint (`pnpm lint:api`) or any other tool to read.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { asyncApiDocument, openApiDocument } from "../packages/contract/src/index.js"

const folder = process.argv[2] ?? ".api"
mkdirSync(folder, { recursive: true })
writeFileSync(join(folder, "openapi.json"), `${JSON.stringify(openApiDocument(), null, 2)}\n`)
writeFileSync(join(folder, "asyncapi.json"), `${JSON.stringify(asyncApiDocument(), null, 2)}\n`)
console.log(`Wrote ${join(folder, "openapi.json")} and ${join(folder, "asyncapi.json")}`)
