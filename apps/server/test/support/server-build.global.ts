import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdir, rename, rm, rmdir } from "node:fs/promises"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run's bundle of the server goes (see child-server.ts). */
    talabServerBuild: string
  }
}

const appDirectory = fileURLToPath(new URL("../..", import.meta.url))
const tsup = fileURLToPath(new URL("../../../../node_modules/.bin/tsup", import.meta.url))

/**
 * Whether the files of this run may start the server as a child process: a run with no filter, or one whose
 * filters name the server's tests. A filtered run of other packages does not pay for the bundle.
 */
const mayStartChildServers = () => {
  const filters = process.argv.slice(2).filter((arg) => !arg.startsWith("-") && arg !== "run")
  return filters.length === 0 || filters.some((filter) => /apps\/server|apps\b|e2e|deploy/.test(filter))
}

/**
 * Builds the bundle in the background, under the lock child-server.ts waits on: it runs on the second core while
 * the other global setup makes the run's databases and the workers load their modules, rather than in the first
 * worker that needs it while the others wait. A failed build leaves no bundle, and that worker builds it again
 * and reports why.
 */
const buildInBackground = async (folder: string): Promise<ChildProcess> => {
  const lock = `${folder}.lock`
  const scratch = `${folder}.setup`
  await mkdir(dirname(folder), { recursive: true })
  await mkdir(lock)
  const child = spawn(tsup, ["--out-dir", scratch, "--no-sourcemap", "--silent"], {
    cwd: appDirectory,
    stdio: "ignore"
  })
  const settle = async (built: boolean) => {
    if (built) await rename(scratch, folder).catch(() => undefined)
    else await rm(scratch, { recursive: true, force: true })
    await rm(lock, { recursive: true, force: true })
  }
  child.once("exit", (code) => void settle(code === 0))
  child.once("error", () => void settle(false))
  return child
}

/**
 * vitest global setup: a folder for this run's bundle of the server (child-server.ts), inside apps/server so that
 * the bundle finds the server's node_modules, and the bundle started there; after the last file, it is removed
 * with the data directories copied for the suites.
 */
export default async function setup(project: TestProject) {
  const folder = fileURLToPath(
    new URL(`../../.test-build/${process.pid}-${randomBytes(4).toString("hex")}`, import.meta.url)
  )
  project.provide("talabServerBuild", folder)
  const build = mayStartChildServers() ? await buildInBackground(folder) : undefined
  // Awaited by the last global setup (server-build-ready.global.ts), before any worker starts.
  ;(globalThis as { talabServerBuilt?: Promise<unknown> }).talabServerBuilt =
    build === undefined || build.exitCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => {
          build.once("exit", resolve)
          build.once("error", resolve)
        })
  return async () => {
    if (build !== undefined && build.exitCode === null && build.signalCode === null) {
      const exited = new Promise((resolve) => build.once("exit", resolve))
      build.kill("SIGTERM")
      await exited
    }
    for (const path of [folder, `${folder}.setup`, `${folder}.data`, `${folder}.lock`])
      await rm(path, { recursive: true, force: true })
    // .test-build itself, unless another run is using it.
    await rmdir(dirname(folder)).catch(() => undefined)
  }
}
