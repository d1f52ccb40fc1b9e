import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"

/*
 * The real entry point (apps/server/src/main.ts) in a child process, as an operator runs it, loaded
 * through tsx directly so signals reach the server itself.
 */
const appDirectory = fileURLToPath(new URL("../..", import.meta.url))

export interface ChildServer {
  readonly child: ChildProcess
  readonly output: { stdout: string; stderr: string }
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts the server with only what Node needs plus the given variables. */
export const startChildServer = (variables: Record<string, string>): ChildServer => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDirectory,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", HOST: "127.0.0.1", ...variables },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const output = { stdout: "", stderr: "" }
  child.stdout!.on("data", (chunk) => (output.stdout += chunk))
  child.stderr!.on("data", (chunk) => (output.stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output, exited }
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

export const waitUntilLive = async (port: number, server: ChildServer) => {
  let stopped = false
  void server.exited.then(() => (stopped = true))
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline && !stopped) {
    try {
      // A connection accepted between the listen and the app being served is never answered: give it up.
      if ((await fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(2_000) })).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not come up: ${server.output.stderr}${server.output.stdout.slice(-2000)}`)
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
