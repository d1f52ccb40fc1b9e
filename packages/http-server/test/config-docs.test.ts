import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { withEnvironmentTable } from "../src/config/SettingsTable.js"

describe("README.md's environment variables", () => {
  it("are the table the declarations give (run `pnpm docs:config` after changing one)", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
    expect(readme).toBe(withEnvironmentTable(readme))
  })
})
