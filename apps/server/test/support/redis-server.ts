import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createConnection } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./process.js"

/** Answers true once a PING on the port gets +PONG. */
const pong = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" })
    let reply = ""
    socket.setTimeout(500, () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(false))
    socket.on("data", (chunk) => {
      reply += chunk.toString()
      if (reply.includes("\r\n")) {
        socket.destroy()
        resolve(reply.startsWith("+PONG"))
      }
    })
    socket.once("connect", () => socket.write("PING\r\n"))
  })

/**
 * A Redis of the test's own (redis-server on PATH) on a free loopback port, with no persistence, in a temporary
 * directory: `stop()` ends it by its process handle, `start()` starts it again, empty, on the same port.
 */
export const privateRedis = async () => {
  const port = await freePort()
  const directory = mkdtempSync(join(tmpdir(), "talab-redis-"))
  let child: ChildProcess | undefined

  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
      { stdio: "ignore" }
    )
    child = started
    const deadline = Date.now() + 10_000
    while (!(await pong(port))) {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`)
      if (Date.now() > deadline) throw new Error("redis-server did not answer PING within 10 s")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once("exit", resolve))
    running.kill("SIGTERM")
    await exited
  }

  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    /** Stops it and removes its directory. */
    dispose: async () => {
      await stop()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
