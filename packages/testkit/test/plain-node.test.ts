import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
// A hang bound, not a speed check: CI runs this at a low priority beside the suite, where a start that takes
// seconds on a quiet machine waits minutes for the CPU. A process that does not end by itself is killed at the
// bound, and its exit code fails the test.
const processBound = 300_000

describe("startTestServer from plain Node", () => {
  it("starts, signs a user in, moves the clock, and lets the process end once closed", async () => {
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", join(packageDir, "test", "fixtures", "plain-node.mjs")],
        { cwd: packageDir, encoding: "utf8", timeout: processBound },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
      )
    })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(JSON.parse(outcome.stdout.trim().split("\n").at(-1)!)).toEqual({ signedIn: true, expiredStatus: 401 })
  })
})
