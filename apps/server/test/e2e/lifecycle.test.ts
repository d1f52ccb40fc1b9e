import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  freePort,
  jsonLogLines,
  killStartedServers,
  lastCodeInOutbox,
  migratedDataDir,
  startServer,
  waitUntilLive
} from "../support/child-server.js"
import { eventually } from "../support/eventually.js"
import { WsClient } from "../support/ws-client.js"

/*
 * The process around the app: when its port opens, what a SIGTERM does to every kind of connection, and who
 * else can reach its embedded database. Each test runs the real entry point in a child process.
 */

afterEach(killStartedServers)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A raw TCP connection that records what it received and when it was closed. */
const rawConnection = (port: number) =>
  new Promise<{ socket: Socket; received: () => string; closedAt: Promise<number> }>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port })
    let received = ""
    socket.on("data", (chunk) => (received += chunk.toString("latin1")))
    const closedAt = new Promise<number>((done) => socket.once("close", () => done(Date.now())))
    socket.once("error", reject)
    socket.once("connect", () => {
      socket.off("error", reject)
      socket.on("error", () => {})
      resolve({ socket, received: () => received, closedAt })
    })
  })

/** The statuses of the responses in what a connection received (a response may follow a body on the same line). */
const statusLines = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))

/** One connection made while the server may not be up yet: refused, answered, or accepted and never answered. */
const probe = (port: number) =>
  new Promise<"refused" | "answered" | "unanswered">((resolve) => {
    const socket = connect({ host: "127.0.0.1", port })
    let connected = false
    let received = ""
    const timer = setTimeout(() => {
      socket.destroy()
      resolve("unanswered")
    }, 15_000)
    const settle = (result: "refused" | "answered" | "unanswered") => {
      clearTimeout(timer)
      socket.destroy()
      resolve(result)
    }
    socket.on("connect", () => {
      connected = true
      socket.write("GET /health/live HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
    })
    socket.on("data", (chunk) => {
      received += chunk.toString()
      if (/^HTTP\/1\.1 200/.test(received)) settle("answered")
    })
    socket.on("error", () => settle(connected ? "unanswered" : "refused"))
    socket.on("close", () =>
      settle(connected && /^HTTP\/1\.1 200/.test(received) ? "answered" : connected ? "unanswered" : "refused")
    )
  })

describe("start-up", () => {
  it("answers every connection it accepts, from the first moment its port is open", async () => {
    const port = await freePort()
    const { exited } = startServer({ PORT: String(port), DATA_DIR: migratedDataDir() })
    let stopped = false
    void exited.then(() => (stopped = true))
    const probes: Array<Promise<string>> = []
    let answered = 0
    let waiting = 0
    const deadline = Date.now() + 90_000
    // A connection every 5 ms until 40 have been answered. At most 20 wait for their outcome at once: on a
    // loaded machine a server just up answers fewer than 200 connections a second, and a queue the probes
    // themselves built would leave the last ones unanswered for longer than their 15 s.
    while (answered < 40 && Date.now() < deadline && !stopped) {
      if (waiting < 20) {
        waiting += 1
        probes.push(
          probe(port).then((result) => {
            waiting -= 1
            if (result === "answered") answered += 1
            return result
          })
        )
      }
      await sleep(5)
    }
    const results = await Promise.all(probes)
    const accepted = results.filter((result) => result !== "refused")
    expect(accepted.length).toBeGreaterThanOrEqual(40)
    expect(accepted.filter((result) => result !== "answered")).toEqual([])
  }, 120_000)
})

/** The TCP ports and Unix socket paths `pid` listens on, from /proc. */
const listeningSockets = (pid: number) => {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode !== undefined) inodes.add(inode)
    } catch {}
  }
  const tcpPorts: Array<number> = []
  for (const table of ["tcp", "tcp6"]) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; field 9 is the inode.
      if (fields[3] === "0A" && inodes.has(fields[9]!)) tcpPorts.push(Number.parseInt(fields[1]!.split(":")[1]!, 16))
    }
  }
  const unixPaths: Array<string> = []
  for (const line of readFileSync("/proc/net/unix", "utf8").trim().split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/)
    // State 01 is listening (with the ACC flag 00010000); field 6 is the inode, 7 the path.
    if (fields[3] === "00010000" && inodes.has(fields[6]!) && fields[7] !== undefined) unixPaths.push(fields[7])
  }
  return { tcpPorts: [...new Set(tcpPorts)], unixPaths }
}

/** A PostgreSQL StartupMessage for user postgres, database postgres (protocol 3.0). */
const startupMessage = () => {
  const parameters = Buffer.from("user\0postgres\0database\0postgres\0\0")
  const message = Buffer.alloc(8 + parameters.length)
  message.writeInt32BE(message.length, 0)
  message.writeInt32BE(196608, 4)
  parameters.copy(message, 8)
  return message
}

describe("the embedded database", () => {
  it("is reachable by no other process: no TCP port but the API's, a socket only its own user can open", async () => {
    const port = await freePort()
    const { child, exited } = startServer({ PORT: String(port), DATA_DIR: migratedDataDir() })
    await waitUntilLive(port, exited)

    const { tcpPorts, unixPaths } = listeningSockets(child.pid!)
    expect(tcpPorts).toEqual([port])
    // The one TCP port speaks HTTP: a PostgreSQL client gets an HTTP error, not a session.
    const connection = await rawConnection(port)
    connection.socket.write(startupMessage())
    await connection.closedAt
    expect(connection.received()).toMatch(/^HTTP\/1\.1 400/)

    const socketPath = unixPaths.find((path) => path.endsWith(".s.PGSQL.5432"))
    if (socketPath === undefined) throw new Error(`no database socket among ${unixPaths.join(", ")}`)
    expect(statSync(socketPath).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(socketPath)).mode & 0o777).toBe(0o700)
    if (process.getuid?.() === 0) {
      // Another user (nobody) cannot even open the socket, let alone read or write through it.
      const attempt = spawnSync(
        "runuser",
        [
          "-u",
          "nobody",
          "--",
          process.execPath,
          "-e",
          `require("net").connect(${JSON.stringify(socketPath)}).on("connect", () => { console.log("connected"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(0) })`
        ],
        { encoding: "utf8", timeout: 20_000 }
      )
      expect(attempt.stdout.trim()).toBe("EACCES")
    }

    child.kill("SIGTERM")
    expect(await exited).toEqual({ code: 0, signal: null })
  }, 150_000)
})

describe("SIGTERM", () => {
  // The connections' share is 3 s of it (the timeout less 3 s): what is left after the slow client is cut is
  // the 3 s the pushes and the database have to close in, on a loaded machine too.
  const SHUTDOWN_TIMEOUT_MS = 6_000
  const jwtSecret = "a-production-secret-of-at-least-32-bytes"

  it("closes idle, half-sent and slow connections, lets the request in flight finish, answers ready 503, closes " +
    "WebSockets with 1001, exits 0 within SHUTDOWN_TIMEOUT_MS, and keeps every confirmed write", async () => {
    const dataDir = migratedDataDir()
    const outbox = join(dataDir, "sms.jsonl")
    const port = await freePort()
    const variables = {
      PORT: String(port),
      DATA_DIR: dataDir,
      NODE_ENV: "production",
      JWT_SECRET: jwtSecret,
      SMS_OUTBOX_FILE: outbox,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ALLOW_CONSOLE_PROVIDERS: "true"
    }
    const first = startServer(variables)
    await waitUntilLive(port, first.exited)

    const api = `http://127.0.0.1:${port}/api/v1`
    const phone = "+966501112233"
    const post = (path: string, body: unknown) =>
      fetch(`${api}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    expect((await post("/auth/request-otp", { phone_number: phone })).status).toBe(200)
    const verified = await post("/auth/verify-otp", { phone_number: phone, otp_code: lastCodeInOutbox(outbox, phone) })
    const token: string = (await verified.json()).data.tokens.access_token

    // An idle keep-alive connection, after one answered request.
    const idle = await rawConnection(port)
    idle.socket.write("GET /health/live HTTP/1.1\r\nHost: t\r\n\r\n")
    while (statusLines(idle.received()).length === 0) await sleep(10)
    // A request whose headers are not all sent.
    const halfSent = await rawConnection(port)
    halfSent.socket.write("GET /health/live HTTP/1.1\r\nHost: t\r\nX-Slow:")
    // A client that sends its body a byte at a time and would never finish.
    const slow = await rawConnection(port)
    slow.socket.write(
      `PUT /api/v1/users/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    )
    const trickle = setInterval(() => slow.socket.writable && slow.socket.write(" "), 100)
    // A write in flight: its body is finished after the signal, and a readiness check follows it.
    const confirmedName = "Confirmed After Sigterm"
    const body = JSON.stringify({ name: confirmedName })
    const inFlight = await rawConnection(port)
    // Its head read by the server (which answers 100 Continue to it) before the signal: it is in flight there.
    inFlight.socket.write(
      `PUT /api/v1/users/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${token}\r\nExpect: 100-continue\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
    )
    await eventually(() => (inFlight.received().includes("100 Continue") ? true : undefined), "100 Continue")
    inFlight.socket.write(body.slice(0, 5))
    const socket = await WsClient.connect(`ws://127.0.0.1:${port}/ws`)
    socket.send({ type: "auth", token })
    await socket.next((frame) => frame.type === "auth_ok")

    const signalledAt = Date.now()
    first.child.kill("SIGTERM")
    // New connections are refused once the port closes (a kept-alive one is still answered, with
    // Connection: close, during the grace).
    await eventually(async () => ((await probe(port)) === "refused" ? true : undefined), "the port to close")
    inFlight.socket.write(`${body.slice(5)}GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n`)

    expect(await first.exited).toEqual({ code: 0, signal: null })
    const exitedAfter = Date.now() - signalledAt
    clearInterval(trickle)
    expect(exitedAfter).toBeLessThan(SHUTDOWN_TIMEOUT_MS)

    // Closed after the idle grace (500 ms), well before the connections' share of the timeout.
    expect((await idle.closedAt) - signalledAt).toBeLessThan(2_000)
    expect((await halfSent.closedAt) - signalledAt).toBeLessThan(2_000)
    expect(statusLines(halfSent.received())).toEqual([])
    // Cut at the connections' share of the timeout, having had no answer.
    expect((await slow.closedAt) - signalledAt).toBeGreaterThanOrEqual(2_500)
    expect(statusLines(slow.received())).toEqual([])
    // The write finished and was answered; the check sent behind it on the same connection saw a draining server.
    await inFlight.closedAt
    expect(statusLines(inFlight.received())).toEqual([100, 200, 503])
    expect(inFlight.received()).toMatch(/"status":"draining"/)
    expect(await socket.closed).toMatchObject({ code: 1001 })

    const messages = jsonLogLines(first.output.stdout).map((line) => line.message)
    expect(messages).toEqual(
      expect.arrayContaining(["Shutting down: draining connections", "Connections drained", "Stopped"])
    )

    // What was confirmed is there after a restart on the same DATA_DIR.
    const second = startServer(variables)
    await waitUntilLive(port, second.exited)
    const me = await fetch(`${api}/users/me`, { headers: { authorization: `Bearer ${token}` } })
    expect((await me.json()).data.name).toBe(confirmedName)
    second.child.kill("SIGTERM")
    expect(await second.exited).toEqual({ code: 0, signal: null })
  }, 240_000)
})
