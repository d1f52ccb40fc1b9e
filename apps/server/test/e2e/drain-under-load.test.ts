import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import {
  type ChildServer,
  freePort,
  killStartedServers,
  migratedDataDir,
  startServer,
  waitUntilLive
} from "../support/child-server.js"

/*
 * A rolling deploy's SIGTERM under load: every request that reaches the server is answered, never reset. Through
 * a keep-alive client straight to the server, and through nginx with the config in deploy/ in front of two.
 */

afterEach(killStartedServers)

type Outcome = { status: number; connectionClose: boolean } | { error: string; reused: boolean }

/** One GET on `agent`'s kept-alive connections: its status, or the error that ended it. */
const get = (agent: Agent, port: number, path: string) =>
  new Promise<Outcome>((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (response) => {
      response.resume()
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, connectionClose: response.headers.connection === "close" })
      )
      response.on("error", (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message, reused: req.reusedSocket })
      )
    })
    // A connection reused from the agent's pool, or a new one: a new one reset is the listening socket's closing.
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, reused: req.reusedSocket })
    )
    req.end()
  })

/**
 * `workers` loops sending requests back to back until `until` says stop; every outcome is kept. A loop whose
 * connection is refused stops: the server no longer accepts (nothing was sent).
 */
const load = async (
  workers: number,
  send: () => Promise<Outcome>,
  until: () => boolean,
  outcomes: Array<Outcome & { at: number }> = []
) => {
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!until()) {
        const outcome = await send()
        outcomes.push({ ...outcome, at: Date.now() })
        if ("error" in outcome && outcome.error === "ECONNREFUSED") return
      }
    })
  )
  return outcomes
}

/** Waits (up to a minute) until `outcomes` holds at least `count`. */
const answeredAtLeast = async (outcomes: ReadonlyArray<Outcome>, count: number) => {
  const deadline = Date.now() + 60_000
  while (outcomes.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${outcomes.length} of ${count} answers within a minute`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A request sent on a kept-alive connection that met a reset or a close instead of its answer. */
const isResetKeptAlive = (outcome: Outcome) => "error" in outcome && outcome.error !== "ECONNREFUSED" && outcome.reused

const started = (port: number) => {
  const server = startServer({ PORT: String(port), DATA_DIR: migratedDataDir(), SHUTDOWN_TIMEOUT_MS: "8000" })
  return waitUntilLive(port, server).then(() => server)
}

describe("SIGTERM under load", () => {
  it("answers every request on kept-alive connections (200, or 503 with Connection: close), resets none", async () => {
    const port = await freePort()
    const server = await started(port)
    const agent = new Agent({ keepAlive: true, maxSockets: 32 })
    let signalledAt: number | undefined
    const running = load(
      32,
      () => get(agent, port, "/health/ready"),
      () => server.child.exitCode !== null
    )
    // Every connection is open and kept alive before the signal.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    signalledAt = Date.now()
    server.child.kill("SIGTERM")
    const outcomes = await running
    agent.destroy()
    expect(await server.exited).toEqual({ code: 0, signal: null })

    const after = outcomes.filter((outcome) => outcome.at >= signalledAt!)
    const answeredAfter = after.filter((outcome) => "status" in outcome)
    // A new connection made the instant the listening socket closes may still be reset by the kernel (it sat in
    // the accept queue, never reached the server): that is not counted here; behind nginx it is retried.
    expect(outcomes.filter(isResetKeptAlive)).toEqual([])
    // Requests did arrive on kept-alive connections after the signal, and each was told to close its connection.
    expect(answeredAfter.length).toBeGreaterThan(0)
    for (const outcome of answeredAfter) {
      expect([200, 503]).toContain((outcome as { status: number }).status)
    }
    expect(answeredAfter.some((outcome) => "connectionClose" in outcome && outcome.connectionClose)).toBe(true)
  }, 180_000)
})

const nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path))

/** deploy/nginx.conf, with its two upstreams on `ports`, listening on `listen`, inside a main config of its own. */
const nginxConfig = (folder: string, listen: number, ports: readonly [number, number]) => {
  const deployed = readFileSync(fileURLToPath(new URL("../../../../deploy/nginx.conf", import.meta.url)), "utf8")
  const upstreams = deployed
    .replace(/server talab-1:3000/, `server 127.0.0.1:${ports[0]}`)
    .replace(/server talab-2:3000/, `server 127.0.0.1:${ports[1]}`)
    .replace(/listen 8080;/, `listen 127.0.0.1:${listen};`)
  if (upstreams === deployed || !upstreams.includes(`127.0.0.1:${ports[1]}`)) {
    throw new Error("deploy/nginx.conf no longer names talab-1:3000, talab-2:3000 and port 8080")
  }
  const temp = (name: string) => {
    mkdirSync(join(folder, name), { recursive: true })
    return join(folder, name)
  }
  return `worker_processes 1;
pid ${join(folder, "nginx.pid")};
error_log ${join(folder, "error.log")} warn;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${temp("body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
${upstreams}
}
`
}

describe.skipIf(nginx === undefined)("SIGTERM to one of two instances behind deploy/nginx.conf, under load", () => {
  it("loses no request: every one is answered 200, none 502", async () => {
    const ports = [await freePort(), await freePort()] as const
    const servers: Array<ChildServer> = await Promise.all(ports.map(started))
    const folder = mkdtempSync(join(tmpdir(), "talab-nginx-"))
    const listen = await freePort()
    writeFileSync(join(folder, "nginx.conf"), nginxConfig(folder, listen, ports))
    const proxy = spawn(nginx!, ["-p", folder, "-c", join(folder, "nginx.conf")], { stdio: "ignore" })
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 32 })
      const deadline = Date.now() + 30_000
      while ("error" in (await get(agent, listen, "/health/live"))) {
        if (Date.now() > deadline)
          throw new Error(`nginx did not answer: ${readFileSync(join(folder, "error.log"), "utf8")}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      let stop = false
      const outcomes: Array<Outcome & { at: number }> = []
      const running = load(
        32,
        () => get(agent, listen, "/health/live"),
        () => stop,
        outcomes
      )
      // Counted, not timed, so a loaded machine still sends enough: both instances under load before the signal,
      // then the other one alone after the first has exited.
      await answeredAtLeast(outcomes, 100)
      servers[0]!.child.kill("SIGTERM")
      expect(await servers[0]!.exited).toEqual({ code: 0, signal: null })
      const exitedAt = Date.now()
      await answeredAtLeast(outcomes, outcomes.length + 100)
      stop = true
      await running
      agent.destroy()
      expect(outcomes.filter((outcome) => outcome.at >= exitedAt).length).toBeGreaterThanOrEqual(100)
      expect(outcomes.filter((outcome) => !("status" in outcome) || outcome.status !== 200)).toEqual([])
    } finally {
      proxy.kill("SIGTERM")
      await new Promise((resolve) => (proxy.exitCode !== null ? resolve(null) : proxy.once("exit", resolve)))
      rmSync(folder, { recursive: true, force: true })
    }
  }, 180_000)
})

if (nginx === undefined) {
  describe("nginx", () => {
    it.skip("is not installed (apt-get install nginx-light): the test through deploy/nginx.conf did not run", () => {})
  })
}
