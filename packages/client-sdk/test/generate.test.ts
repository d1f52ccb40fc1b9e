import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const root = mkdtempSync(join(tmpdir(), "talab-sdk-generate-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Ran {
  readonly status: number
  readonly stderr: string
}

/** Runs the generator without blocking the test worker (a worker blocked for a minute fails the run). */
const script = (...args: Array<string>) =>
  new Promise<Ran>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", join(packageDir, "scripts", "generate.ts"), "--root", root, ...args],
      { cwd: packageDir, encoding: "utf8" },
      (error, _stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === "number" ? error.code : 1) : 0, stderr })
    )
  })

describe("generated types", () => {
  it("generate writes the server's document and its types; --check passes on them and fails once they are stale", async () => {
    const generated = await script()
    expect(generated.status, generated.stderr).toBe(0)
    const document = JSON.parse(readFileSync(join(root, "openapi.json"), "utf8"))
    expect(document.openapi).toBe("3.1.0")
    expect(Object.keys(document.paths)).toContain("/api/v1/auth/verify-otp")
    const schema = readFileSync(join(root, "src", "generated", "schema.ts"), "utf8")
    expect(schema).toContain('"/api/v1/auth/verify-otp": {')

    expect((await script("--check")).status).toBe(0)

    writeFileSync(join(root, "src", "generated", "schema.ts"), schema.replace("verify-otp", "verify-otp-renamed"))
    const stale = await script("--check")
    expect(stale.status).toBe(1)
    expect(stale.stderr).toContain("schema.ts")
    expect(stale.stderr).toContain("pnpm --filter @talab/client-sdk generate")
  })
})
