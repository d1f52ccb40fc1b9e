import { execFileSync } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync
} from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { migratedDataDirToCopy } from "../../../../packages/http-server/test/support/migrated-databases.js"
import { blockThreadFor } from "../../../../packages/http-server/test/support/stalled-event-loop.js"
import { freePort, killStarted, type Started, startProcess, waitUntilLive as waitForProcess } from "./process.js"

/*
 * The real entry point in a child process, as an operator runs it: `src/main.ts` bundled by the server's own
 * tsup config (what `pnpm build` ships as dist/main.js), run by plain Node. The bundle is built once per test run,
 * in the background by the global setup (server-build.global.ts), or else by the first file that starts a server,
 * into a folder of the run's: loading the
 * bundle takes half the time tsx takes to compile the sources. Its `DATA_DIR` is a copy of the run's migrated
 * embedded database (`migratedDataDir`), a fraction of the CPU of initdb and the migrations.
 */
const appDirectory = fileURLToPath(new URL("../..", import.meta.url))
const tsup = fileURLToPath(new URL("../../../../node_modules/.bin/tsup", import.meta.url))

let built: string | undefined
/** The run's build folder with the bundle (`main.js`, `cli.js`), made on first use. */
const serverBuild = (): string => {
  if (built !== undefined) return built
  const folder = inject("talabServerBuild")
  const lock = `${folder}.lock`
  const deadline = Date.now() + 180_000
  mkdirSync(dirname(folder), { recursive: true })
  // One worker builds while the others wait: four workers start such files at once.
  while (!existsSync(join(folder, "main.js"))) {
    if (Date.now() > deadline) throw new Error(`the server's bundle did not appear in ${folder}`)
    try {
      mkdirSync(lock)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      blockThreadFor(200)
      continue
    }
    // Built aside and renamed into place, so that no worker ever runs a half-written bundle.
    const scratch = `${folder}.${process.pid}`
    try {
      execFileSync(tsup, ["--out-dir", scratch, "--no-sourcemap", "--silent"], { cwd: appDirectory, stdio: "pipe" })
      renameSync(scratch, folder)
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true })
      throw error
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
  built = folder
  return folder
}

/** The run's bundle of the server. */
const serverEntry = () => join(serverBuild(), "main.js")

/**
 * A new `DATA_DIR` holding a copy of an embedded database the migrations have already run on (40 MB), in a folder
 * the run's global teardown removes.
 */
export const migratedDataDir = (): string => {
  const folder = serverBuild()
  mkdirSync(`${folder}.data`, { recursive: true })
  const directory = mkdtempSync(join(`${folder}.data`, "data-"))
  cpSync(migratedDataDirToCopy(), directory, { recursive: true })
  return directory
}

export type ChildServer = Started
export { freePort }

/**
 * A child lives seconds, not days: V8 compiles the embedded database's WebAssembly with its baseline compiler
 * only, instead of also recompiling its hot functions optimized on background threads. That recompiling is a
 * third of a start's CPU (about 3 s of 8) and pays back only in a long-lived process; what the server does is
 * the same either way.
 */
const SHORT_LIVED_NODE = ["--liftoff-only"]

/** Starts the server with only what Node needs in its environment, plus `variables`. */
export const startServer = (variables: Record<string, string>): ChildServer =>
  startProcess(process.execPath, [...SHORT_LIVED_NODE, serverEntry()], appDirectory, {
    HOST: "127.0.0.1",
    ...variables
  })

/** Runs the bundled `talab` command (src/cli.ts) with only what Node needs in its environment, plus `variables`. */
export const runTalabCommand = (args: ReadonlyArray<string>, variables: Record<string, string>): Started =>
  startProcess(process.execPath, [...SHORT_LIVED_NODE, join(serverBuild(), "cli.js"), ...args], appDirectory, variables)

/** Kills (SIGKILL) the servers this file started that are still running, by their own handle. */
export const killStartedServers = killStarted

/** Waits for `/health/live`; gives up when the child exits (`server` or its `exited` promise) or after 90 s. */
export const waitUntilLive = async (port: number, server: ChildServer | Promise<unknown>) => {
  const exited = server instanceof Promise ? server : server.exited
  try {
    await waitForProcess(port, exited, 90_000)
  } catch (error) {
    if (server instanceof Promise) throw error
    throw new Error(`the server did not come up: ${server.output.stderr}${server.output.stdout.slice(-2000)}`)
  }
}

/** The structured log lines (NODE_ENV=production logs JSON) of a child's stdout. */
export const jsonLogLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map(
      (line) =>
        JSON.parse(line) as {
          message: unknown
          annotations: Record<string, unknown>
          logLevel: string
          timestamp: string
        }
    )

/** The last one-time code the server wrote to its SMS outbox file for `phone`. */
export const lastCodeInOutbox = (outboxFile: string, phone: string): string => {
  const lines = readFileSync(outboxFile, "utf8").trim().split("\n")
  for (const line of lines.reverse()) {
    const sms = JSON.parse(line) as { to: string; code?: string }
    if (sms.to === phone && sms.code !== undefined) return sms.code
  }
  throw new Error(`no code sent to ${phone}`)
}

/** The TCP ports a process listens on (Linux: its socket descriptors matched against /proc/net/tcp{,6}). */
export const listeningPorts = (pid: number): Array<number> => {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode !== undefined) inodes.add(inode)
    } catch {}
  }
  const ports = new Set<number>()
  for (const table of ["tcp", "tcp6"]) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1)
    for (const line of lines) {
      const columns = line.trim().split(/\s+/)
      const [, local, , state, , , , , , inode] = columns
      if (state === "0A" && inode !== undefined && inodes.has(inode))
        ports.add(Number.parseInt(local!.split(":")[1]!, 16))
    }
  }
  return [...ports].sort((a, b) => a - b)
}
