import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { freePort, killStarted, type Started, startProcess, waitUntilLive as waitForProcess } from "./process.js"

/*
 * The real entry point (apps/server/src/main.ts) in a child process: what an operator runs. Node loads
 * it through tsx directly (as `npx tsx` would, without npm's own output on stderr and with signals
 * going straight to the server).
 */
const appDirectory = fileURLToPath(new URL("../..", import.meta.url))

export type ChildServer = Started
export { freePort }

/** Starts the server with only what Node needs in its environment, plus `variables`. */
export const startServer = (variables: Record<string, string>): ChildServer =>
  startProcess(process.execPath, ["--import", "tsx", "src/main.ts"], appDirectory, {
    HOST: "127.0.0.1",
    ...variables
  })

/** Kills (SIGKILL) the servers this file started that are still running, by their own handle. */
export const killStartedServers = killStarted

/** The same start under the name the telemetry tests use. */
export const startChildServer = startServer

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
