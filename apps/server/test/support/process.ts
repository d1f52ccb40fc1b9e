import { type ChildProcess, spawn } from "node:child_process"
import { createServer, request } from "node:http"
import { connect } from "node:net"

/*
 * The server (or `pnpm start`, or the `talab` command) as a child process: what an operator runs. Each
 * helper stops only the processes it started, by their own handle.
 */

export interface Started {
  readonly child: ChildProcess
  readonly output: { stdout: string; stderr: string }
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const started: Array<ChildProcess> = []

/** Starts `command args` in `cwd` with exactly `env` (plus PATH and HOME). */
export const startProcess = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string>
): Started => {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own, so that cleaning up also stops what it started (pnpm's node child).
    detached: true
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

/** Kills (SIGKILL) the process groups this module started; for `afterEach`/`afterAll`. */
export const killStarted = () => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    } catch {
      // The group has already exited.
    }
  }
}

/*
 * Ports for child processes come from below the kernel's ephemeral range (32768 and up on Linux), so no
 * outgoing connection of any process can hold one as its source port, and are picked at random, so two
 * runs side by side rarely try the same one. A port handed out is never handed out again by this worker,
 * and one something already listens on is skipped.
 */
const LOWEST_PORT = 20_000
const PORTS = 12_000
const handedOut = new Set<number>()

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
    probe.once("error", () => resolve(false))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
  })

export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * PORTS)
    if (handedOut.has(port)) continue
    handedOut.add(port)
    if (await listens(port)) return port
  }
  throw new Error("no free port below the ephemeral range")
}

export const waitUntilLive = async (port: number, exited: Promise<unknown>, timeoutMs = 180_000) => {
  let stopped = false
  void exited.then(() => (stopped = true))
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && !stopped) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(5_000) })).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error("the server did not come up")
}

/**
 * A POST whose body is half sent: the request is in flight until `finish()` sends the rest. For drain tests.
 */
export const halfSentRequest = async (port: number, path: string, payload: unknown, requestId: string) => {
  const body = JSON.stringify(payload)
  let sentHalf: () => void = () => {}
  const halfSent = new Promise<void>((resolve) => (sentHalf = resolve))
  let finish: () => void = () => {}
  const answer = new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
    const call = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-request-id": requestId,
          // The server answers 100 Continue once it has read the head: from then on the request is in flight
          // there, not bytes waiting in a socket (which a drain may rightly close as an idle connection).
          expect: "100-continue"
        }
      },
      (response) => {
        let text = ""
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode, text }))
      }
    )
    call.on("error", reject)
    call.on("continue", () => call.write(body.slice(0, 10), () => sentHalf()))
    call.flushHeaders()
    finish = () => call.end(body.slice(10))
  })
  await halfSent
  return { answer, finish: () => finish() }
}

/** Whether a new TCP connection to the port is refused: the port no longer listens (kept-alive ones may be open). */
export const refusesNewConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })
