import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { freePort } from "./child-server.js"

/*
 * A PostgreSQL and a Redis of a test's own, on free ports in temporary directories, that the test stops and
 * starts again (by the PID it started) to see how the server lives through an outage. Never the shared ones.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const waitUntilGone = async (pid: number) => {
  const deadline = Date.now() + 30_000
  while (isRunning(pid) && Date.now() < deadline) await sleep(50)
  if (isRunning(pid)) throw new Error(`process ${pid} did not stop`)
}

const postgresBin = () => {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a))
  const version = versions.find((v) => existsSync(join("/usr/lib/postgresql", v, "bin", "initdb")))
  if (version === undefined) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql")
  return join("/usr/lib/postgresql", version, "bin")
}

/** initdb refuses to run as root: as root, PostgreSQL runs as the `postgres` user. */
const asPostgresUser = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  userInfo().uid === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]

export interface PrivatePostgres {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly remove: () => Promise<void>
}

export const startPrivatePostgres = async (): Promise<PrivatePostgres> => {
  const bin = postgresBin()
  const directory = mkdtempSync(join(tmpdir(), "talab-pg-"))
  if (userInfo().uid === 0) chownSync(directory, Number(execFileSync("id", ["-u", "postgres"]).toString()), 0)
  const dataDir = join(directory, "data")
  const [initdb, initdbArgs] = asPostgresUser(join(bin, "initdb"), [
    "-D",
    dataDir,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--no-sync"
  ])
  execFileSync(initdb, initdbArgs, { stdio: "ignore" })
  const port = await freePort()
  let server: ChildProcess | undefined

  const start = async () => {
    const [postgres, args] = asPostgresUser(join(bin, "postgres"), [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-k",
      directory,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off"
    ])
    server = spawn(postgres, args, { stdio: "ignore" })
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      const ready = spawn(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port)], { stdio: "ignore" })
      if ((await new Promise((resolve) => ready.once("exit", resolve))) === 0) return
      await sleep(100)
    }
    throw new Error("the private PostgreSQL did not start")
  }

  /** A fast shutdown (SIGINT to the postmaster, whose PID is in postmaster.pid): sessions are cut. */
  const stop = async () => {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
    process.kill(pid, "SIGINT")
    await waitUntilGone(pid)
    if (server?.pid !== undefined) await waitUntilGone(server.pid)
  }

  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    remove: async () => {
      if (existsSync(join(dataDir, "postmaster.pid"))) await stop().catch(() => undefined)
      rmSync(directory, { recursive: true, force: true })
    }
  }
}

export interface PrivateRedis {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
}

export const startPrivateRedis = async (): Promise<PrivateRedis> => {
  const port = await freePort()
  let server: ChildProcess | undefined
  const start = async () => {
    server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: ["ignore", "pipe", "ignore"]
      }
    )
    let output = ""
    server.stdout!.on("data", (chunk) => (output += chunk))
    const deadline = Date.now() + 15_000
    while (!output.includes("Ready to accept connections") && Date.now() < deadline) await sleep(50)
    if (!output.includes("Ready to accept connections")) throw new Error("the private Redis did not start")
  }
  const stop = async () => {
    const pid = server?.pid
    if (pid === undefined || !isRunning(pid)) return
    process.kill(pid, "SIGTERM")
    await waitUntilGone(pid)
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, stop, start }
}
