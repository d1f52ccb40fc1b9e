import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"

/*
 * The real entry point (apps/server/src/main.ts) in a child process: what an operator runs. Node loads
 * it through tsx directly (as `npx tsx` would, without npm's own output on stderr and with signals
 * going straight to the server).
 */
const appDirectory = fileURLToPath(new URL("../..", import.meta.url))
const started: Array<ChildProcess> = []

export interface ChildServer {
  readonly child: ChildProcess
  readonly output: { stdout: string; stderr: string }
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts the server with only what Node needs in its environment, plus `variables`. */
export const startServer = (variables: Record<string, string>): ChildServer => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDirectory,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", HOST: "127.0.0.1", ...variables },
    stdio: ["ignore", "pipe", "pipe"]
  })
  started.push(child)
  const output = { stdout: "", stderr: "" }
  child.stdout!.on("data", (chunk) => (output.stdout += chunk))
  child.stderr!.on("data", (chunk) => (output.stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output, exited }
}

/** Kills (SIGKILL) the servers this file started that are still running, by their own handle. */
export const killStartedServers = () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** The same start under the name the telemetry tests use. */
export const startChildServer = startServer

/** Waits for `/health/live`; gives up when the child exits (`server` or its `exited` promise) or after 90 s. */
export const waitUntilLive = async (port: number, server: ChildServer | Promise<unknown>) => {
  const exited = server instanceof Promise ? server : server.exited
  let stopped = false
  void exited.then(() => (stopped = true))
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline && !stopped) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(5_000) })).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const output = server instanceof Promise ? "" : `: ${server.output.stderr}${server.output.stdout.slice(-2000)}`
  throw new Error(`the server did not come up${output}`)
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
