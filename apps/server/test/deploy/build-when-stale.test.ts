import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

/*
 * `pnpm talab` and `pnpm start` run scripts/build-server-when-stale.mjs first. Here it runs on a small tree laid
 * out as the workspace is, with a stand-in build that writes dist/ and appends a line to a log: the log counts
 * the builds, with no timing involved.
 */
const script = fileURLToPath(new URL("../../../../scripts/build-server-when-stale.mjs", import.meta.url))

const fakeBuild = `
const fs = require("node:fs")
if (process.env.FAIL_BUILD) process.exit(3)
fs.mkdirSync("apps/server/dist", { recursive: true })
fs.writeFileSync("apps/server/dist/main.js", "")
fs.writeFileSync("apps/server/dist/cli.js", "")
fs.mkdirSync("apps/server/dist/admin-console", { recursive: true })
fs.writeFileSync("apps/server/dist/admin-console/index.html", "")
fs.appendFileSync("builds.log", "built\\n")
console.log("build output")
`

let root: string

const write = (path: string, text = "") => {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

/** Marks a path as modified a minute from now, later than any build of this test. */
const touchLater = (path: string) => {
  const later = new Date(Date.now() + 60_000)
  utimesSync(join(root, path), later, later)
}

const run = (env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [script, "--root", root, "--", process.execPath, "-e", fakeBuild], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: "utf8"
  })

const builds = () => {
  try {
    return readFileSync(join(root, "builds.log"), "utf8").split("\n").filter(Boolean).length
  } catch {
    return 0
  }
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "talab-build-when-stale-"))
  write("pnpm-lock.yaml")
  write("tsconfig.json", "{}")
  write("apps/server/package.json", "{}")
  write("apps/server/tsup.config.ts")
  write("apps/server/src/main.ts")
  write("apps/server/src/cli.ts")
  write("packages/core/package.json", "{}")
  write("packages/core/src/requests/Request.ts")
  write("packages/contract/src/Api.ts")
  write("apps/admin-console/package.json", "{}")
  write("apps/admin-console/scripts/build.mjs")
  write("apps/admin-console/src/screens/Reports.tsx")
})

afterEach(() => rmSync(root, { recursive: true, force: true }))

describe("build-server-when-stale", () => {
  it("builds the first time, then not again while nothing changed", () => {
    const first = run()
    expect(first.status).toBe(0)
    expect(first.stderr).toContain("server build: apps/server/dist/main.js is missing; building")
    // The build's output goes to stderr: the command that follows owns stdout.
    expect(first.stdout).toBe("")
    expect(first.stderr).toContain("build output")
    expect(builds()).toBe(1)
    const builtAt = statSync(join(root, "apps/server/dist/cli.js")).mtimeMs

    const second = run()
    expect(second.status).toBe(0)
    expect(second.stderr).toBe("server build: current, not rebuilt\n")
    expect(builds()).toBe(1)
    expect(statSync(join(root, "apps/server/dist/cli.js")).mtimeMs).toBe(builtAt)
  })

  it.each([
    "apps/server/src/cli.ts",
    "packages/core/src/requests/Request.ts",
    "packages/contract/src/Api.ts",
    "apps/admin-console/src/screens/Reports.tsx",
    "apps/admin-console/scripts/build.mjs",
    "apps/admin-console/package.json",
    "packages/core/package.json",
    "apps/server/tsup.config.ts",
    "tsconfig.json",
    "pnpm-lock.yaml"
  ])("builds again after %s changes, and only once", (input) => {
    run()
    touchLater(input)
    const after = run()
    expect(after.stderr).toContain(`server build: ${input} changed since the last build; building`)
    expect(builds()).toBe(2)
    // The new build started before the change's (future) mtime, so it counts as not covering it: to prove that
    // a current build is left alone, bring the change back to the past.
    utimesSync(join(root, input), new Date(0), new Date(0))
    run()
    expect(builds()).toBe(2)
  })

  it("builds again when a source is added or deleted (its folder's mtime changes)", () => {
    run()
    rmSync(join(root, "packages/core/src/requests/Request.ts"))
    expect(run().stderr).toContain("packages/core/src/requests changed since the last build")
    expect(builds()).toBe(2)
  })

  it("builds again when dist/ was removed", () => {
    run()
    rmSync(join(root, "apps/server/dist"), { recursive: true })
    expect(run().stderr).toContain("apps/server/dist/main.js is missing")
    expect(builds()).toBe(2)
  })

  it("builds again when the admin console's build was removed", () => {
    run()
    rmSync(join(root, "apps/server/dist/admin-console"), { recursive: true })
    expect(run().stderr).toContain("apps/server/dist/admin-console/index.html is missing")
    expect(builds()).toBe(2)
  })

  it("passes a failed build's exit code on and records nothing, so the next run builds", () => {
    run()
    touchLater("apps/server/src/main.ts")
    expect(run({ FAIL_BUILD: "1" }).status).toBe(3)
    expect(builds()).toBe(1)
    expect(run().stderr).toContain("apps/server/src/main.ts changed since the last build; building")
    expect(builds()).toBe(2)
  })
})
