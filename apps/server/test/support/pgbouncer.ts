import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./process.js"

/*
 * A PgBouncer of this test's own, in transaction pooling mode, in front of the test PostgreSQL server, on a
 * free port; stopped by its PID. PgBouncer refuses to run as root, so it is started as `postgres` when the
 * tests run as root.
 */
export const startPgBouncer = async (upstream: URL, maxServerConnections = 4) => {
  const directory = mkdtempSync(join(tmpdir(), "talab-pgbouncer-"))
  chmodSync(directory, 0o755)
  const port = await freePort()
  const config = join(directory, "pgbouncer.ini")
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || 5432} user=${upstream.username || "postgres"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      `default_pool_size = ${maxServerConnections}`,
      "max_client_conn = 200",
      "ignore_startup_parameters = extra_float_digits,options"
    ].join("\n")
  )
  chmodSync(config, 0o644)
  const asRoot = process.getuid?.() === 0
  const child: ChildProcess = spawn("pgbouncer", asRoot ? ["-u", "postgres", config] : [config], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  let log = ""
  child.stderr!.on("data", (chunk) => (log += chunk))
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log}`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) break
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen: ${log}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    /** `url` with its host and port replaced by the pooler's. */
    through: (url: string) => {
      const pooled = new URL(url)
      pooled.hostname = "127.0.0.1"
      pooled.port = String(port)
      return pooled.toString()
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGINT")
        await exited
      }
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
