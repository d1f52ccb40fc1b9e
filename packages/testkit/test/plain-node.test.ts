import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

describe("startTestServer from plain Node", () => {
  it("starts, signs a user in, moves the clock, and lets the process end once closed", async () => {
    const started = Date.now()
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", join(packageDir, "test", "fixtures", "plain-node.mjs")],
        { cwd: packageDir, encoding: "utf8", timeout: 90_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
      )
    })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(JSON.parse(outcome.stdout.trim().split("\n").at(-1)!)).toEqual({ signedIn: true, expiredStatus: 401 })
    expect(Date.now() - started).toBeLessThan(90_000)
  }, 120_000)
})
