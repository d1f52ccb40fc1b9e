/*
 * Rewrites README.md's table of environment variables from their declarations
 * (packages/http-server/src/config/Settings.ts); a test fails while the checked-in table differs.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { withEnvironmentTable } from "../packages/http-server/src/config/SettingsTable.js"

const file = new URL("../README.md", import.meta.url)
const before = readFileSync(file, "utf8")
const after = withEnvironmentTable(before)
if (after === before) console.log("README.md: the environment variables are up to date")
else {
  writeFileSync(file, after)
  console.log("README.md: environment variables rewritten")
}
