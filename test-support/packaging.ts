import { execFile, execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/*
 * For the packaging tests of the published packages (packages/{core,contract,testkit,client-sdk}/test/package.test.ts):
 * the package as an app installs it — built with tsup, packed by pnpm (which applies publishConfig), unpacked
 * into a temporary app's node_modules — and Node or TypeScript run in that app.
 */

const workspaceDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Runs a build step without blocking the test worker (a worker blocked for a minute misses vitest's own
 * calls and fails the run); rejects with the step's output when it fails.
 */
export const step = (file: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<string>((resolve, reject) => {
    execFile(file, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} ${args.join(" ")}: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)
    )
  })

/** A tool the workspace installed (tsup, tsc). */
export const workspaceBin = (name: string) => join(workspaceDir, "node_modules", ".bin", name)

/** The compiler options of a strict TypeScript app resolving packages as Node does (node16), for consumer checks. */
export const strictNode16App = {
  module: "node16",
  moduleResolution: "node16",
  target: "ES2022",
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  skipLibCheck: true,
  lib: ["ES2022", "DOM"],
  types: []
}

export interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface PackedAppOptions {
  /** Prefix of the temporary directory's name. */
  readonly tempPrefix: string
  /** How long a child process may run. */
  readonly timeoutMs: number
}

/** A temporary app for the package at `packageDir`; `install()` it in `beforeAll`, `remove()` it in `afterAll`. */
export const packedApp = (packageDir: string, { tempPrefix, timeoutMs }: PackedAppOptions) => {
  const work = mkdtempSync(join(tmpdir(), tempPrefix))
  const tarball = join(work, "package.tgz")
  const app = join(work, "app")
  const modules = join(app, "node_modules")
  const installed = join(modules, JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).name)

  /* Asynchronous: a test server running in the test's process must keep answering while a child runs. */
  const run = (file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    new Promise<Ran>((resolve) => {
      execFile(
        file,
        args,
        { cwd: app, encoding: "utf8", env: { ...process.env, ...env }, timeout: timeoutMs },
        (error, stdout, stderr) =>
          resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
      )
    })

  return {
    work,
    app,
    modules,
    /** Where the package is unpacked: `node_modules/<its name>` in the app. */
    installed,
    /** Builds the package with tsup, packs it with pnpm, unpacks it into the app's node_modules. */
    install: async () => {
      await step(workspaceBin("tsup"), [], packageDir)
      await step("pnpm", ["pack", "--out", tarball], packageDir)
      await step("tar", ["-xzf", tarball, "-C", work], work)
      mkdirSync(dirname(installed), { recursive: true })
      cpSync(join(work, "package"), installed, { recursive: true })
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true }))
    },
    /** Links `target` (by default the package's own installed copy of `name`) as `node_modules/<name>`. */
    link: (name: string, target = realpathSync(join(packageDir, "node_modules", name))) => {
      mkdirSync(dirname(join(modules, name)), { recursive: true })
      symlinkSync(target, join(modules, name))
    },
    /** The paths in the packed tarball (`package/…`). */
    packedFiles: () => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n"),
    /** Runs `file` in the app's directory. */
    run,
    /** Runs Node in the app's directory. */
    node: (args: ReadonlyArray<string>, env: Record<string, string> = {}) => run(process.execPath, args, env),
    /** Type-checks `files` of the app with the workspace's tsc under `compilerOptions`. */
    compile: (compilerOptions: Record<string, unknown>, files: ReadonlyArray<string>) => {
      writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files }))
      return run(workspaceBin("tsc"), ["-p", join(app, "tsconfig.json")])
    },
    remove: () => rmSync(work, { recursive: true, force: true })
  }
}
