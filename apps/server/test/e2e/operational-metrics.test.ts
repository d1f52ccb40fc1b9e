import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Exposition, parsePrometheusText } from "../../../../test-support/prometheus.js"
import { type ChildServer, freePort, lastCodeInOutbox, startServer, waitUntilLive } from "../support/child-server.js"
import { eventually } from "../support/eventually.js"
import { createPostgresDatabase } from "../support/postgres.js"
import { privateRedis } from "../support/redis-server.js"
import { WsClient } from "../support/ws-client.js"

/*
 * The metrics an operator alerts on, scraped from METRICS_PORT of the real server (src/main.ts in a child process)
 * on PostgreSQL and a Redis of the test's own: the process's health, the outbox's lag, Redis's readiness, and
 * WebSocket handshakes and closes. Each series is shown to exist and to move when what it measures changes.
 */

const HANDSHAKES_PER_MINUTE = 6
const ALLOWED_ORIGIN = "https://app.talab.example"

const total = (metrics: Exposition, name: string) =>
  metrics.samples.filter((sample) => sample.name === name).reduce((sum, sample) => sum + sample.value, 0)

describe("operational metrics on METRICS_PORT", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talab-ops-metrics-"))
  const smsOutbox = join(dataDir, "sms.jsonl")
  let redis: Awaited<ReturnType<typeof privateRedis>>
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>
  let server: ChildServer
  let baseUrl: string
  let metricsUrl: string

  const scrape = async () => {
    const response = await fetch(metricsUrl)
    expect(response.status).toBe(200)
    return parsePrometheusText(await response.text())
  }
  const until = (check: (metrics: Exposition) => boolean, what: string) =>
    eventually(async () => {
      const metrics = await scrape()
      return check(metrics) ? metrics : undefined
    }, what)

  const signIn = async () => {
    const phone = `+96655${String(Date.now() % 10_000_000).padStart(7, "0")}`
    const post = (path: string, body: unknown) =>
      fetch(`${baseUrl}/api/v1/auth/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    expect((await post("request-otp", { phone_number: phone })).status).toBe(200)
    const verified = await post("verify-otp", { phone_number: phone, otp_code: lastCodeInOutbox(smsOutbox, phone) })
    expect(verified.status).toBe(200)
    return ((await verified.json()) as any).data.tokens.access_token as string
  }

  beforeAll(async () => {
    redis = await privateRedis()
    database = await createPostgresDatabase()
    const [port, metricsPort] = [await freePort(), await freePort()]
    baseUrl = `http://127.0.0.1:${port}`
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    server = startServer({
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: "a-secret-for-the-metrics-test-of-32-bytes",
      SMS_OUTBOX_FILE: smsOutbox,
      CORS_ORIGINS: ALLOWED_ORIGIN,
      RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE: String(HANDSHAKES_PER_MINUTE)
    })
    await waitUntilLive(port, server)
  }, 120_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM")
      await server.exited
    }
    await database?.drop()
    await redis?.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it("reports memory, CPU, event-loop utilisation, descriptors and GC, and they move with the work", async () => {
    const before = await scrape()
    expect(before.types.get("talab_process_cpu_seconds_total")).toBe("counter")
    expect(before.types.get("talab_gc_duration_seconds")).toBe("histogram")
    expect(before.value("talab_process_resident_memory_bytes")).toBeGreaterThan(10_000_000)
    expect(before.value("talab_process_heap_used_bytes")).toBeGreaterThan(0)
    expect(before.value("talab_process_heap_total_bytes")).toBeGreaterThanOrEqual(
      before.value("talab_process_heap_used_bytes")!
    )
    const utilization = before.value("talab_event_loop_utilization")!
    expect(utilization).toBeGreaterThanOrEqual(0)
    expect(utilization).toBeLessThanOrEqual(1)
    expect(before.value("talab_process_max_fds")).toBeGreaterThan(0)

    // Twenty idle TCP connections are twenty more descriptors held by the server.
    const sockets: Array<Socket> = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(Number(new URL(baseUrl).port), "127.0.0.1", () => resolve(socket))
            socket.once("error", reject)
          })
      )
    )
    const fdsBefore = before.value("talab_process_open_fds")!
    await until((m) => m.value("talab_process_open_fds")! >= fdsBefore + 20, "20 more descriptors")
    for (const socket of sockets) socket.destroy()
    await until((m) => m.value("talab_process_open_fds")! < fdsBefore + 20, "the descriptors released")

    // Work (requests that allocate) costs CPU time and, sooner or later, a garbage collection.
    const cpuBefore = total(before, "talab_process_cpu_seconds_total")
    const gcBefore = total(before, "talab_gc_duration_seconds_count")
    await eventually(async () => {
      await Promise.all(
        Array.from({ length: 50 }, () => fetch(`${baseUrl}/api/v1/no-such-route?pad=${"x".repeat(2000)}`))
      )
      const now = await scrape()
      return total(now, "talab_process_cpu_seconds_total") > cpuBefore &&
        total(now, "talab_gc_duration_seconds_count") > gcBefore
        ? now
        : undefined
    }, "CPU time and a garbage collection")
  })

  it("reports how long the oldest unconsumed outbox event has waited, and 0 once it is consumed", async () => {
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    try {
      expect((await scrape()).value("talab_outbox_oldest_unpublished_age_seconds")).toBe(0)
      // The alert matcher claims RequestCreated events with a join on buy_requests: with that table locked it
      // waits, as a stuck consumer would, and the event stays unconsumed until the lock goes.
      await admin.query("BEGIN")
      await admin.query("LOCK TABLE buy_requests IN ACCESS EXCLUSIVE MODE")
      await runOutside(database.url, (client) =>
        client.query(
          `INSERT INTO outbox_events (type, payload, created_at) VALUES ('RequestCreated', $1, now() - interval '120 seconds')`,
          [JSON.stringify({ requestId: randomUUID(), buyerId: randomUUID() })]
        )
      )
      const stuck = await until(
        (m) => m.value("talab_outbox_oldest_unpublished_age_seconds")! >= 120,
        "the stuck event's age"
      )
      const first = stuck.value("talab_outbox_oldest_unpublished_age_seconds")!
      await until((m) => m.value("talab_outbox_oldest_unpublished_age_seconds")! > first, "the age growing")
      await admin.query("COMMIT")
      await until((m) => m.value("talab_outbox_oldest_unpublished_age_seconds") === 0, "the event consumed")
    } finally {
      await admin.end()
    }
  })

  it("counts WebSocket handshakes accepted and refused by reason, and closes by code", async () => {
    const wsUrl = `${baseUrl.replace("http", "ws")}/ws`
    const before = await scrape()
    const handshakes = (m: Exposition, outcome: string, reason: string) =>
      m.value("talab_ws_handshakes_total", { outcome, reason }) ?? 0
    const closes = (m: Exposition, code: string) => m.value("talab_ws_closes_total", { code }) ?? 0

    // A plain GET is not an upgrade: 426, and nothing of the handshake budget is used.
    expect((await fetch(wsUrl.replace("ws", "http"))).status).toBe(426)

    const token = await signIn()
    const byClient = await WsClient.connect(wsUrl)
    expect((await byClient.auth(token)).type).toBe("auth_ok")
    byClient.ws.close(1000, "done")
    expect((await byClient.closed).code).toBe(1000)

    const badToken = await WsClient.connect(wsUrl)
    badToken.ws.send(JSON.stringify({ type: "auth", token: "not-a-token" }))
    expect((await badToken.closed).code).toBe(4401)

    await expect(WsClient.connect(wsUrl, { headers: { origin: "https://elsewhere.example" } })).rejects.toMatchObject({
      status: 403
    })

    // The rest of the minute's budget, then a refusal.
    let accepted = 2
    for (;;) {
      const outcome = await WsClient.connect(wsUrl).then(
        async (socket) => {
          socket.ws.close(1000, "done")
          await socket.closed
          return "accepted"
        },
        (error: { status?: number }) => error.status
      )
      if (outcome !== "accepted") {
        expect(outcome).toBe(429)
        break
      }
      accepted++
      expect(accepted).toBeLessThan(HANDSHAKES_PER_MINUTE)
    }

    const after = await until((m) => closes(m, "1000") - closes(before, "1000") >= accepted - 1, "the closes counted")
    const delta = (outcome: string, reason: string) =>
      handshakes(after, outcome, reason) - handshakes(before, outcome, reason)
    expect(delta("accepted", "accepted")).toBe(accepted)
    expect(delta("refused", "upgrade_required")).toBe(1)
    expect(delta("refused", "origin_not_allowed")).toBe(1)
    expect(delta("refused", "rate_limited")).toBe(1)
    expect(closes(after, "1000") - closes(before, "1000")).toBe(accepted - 1)
    expect(closes(after, "4401") - closes(before, "4401")).toBe(1)
  })

  it("reports each Redis connection up, down while Redis is away, and up again when it is back", async () => {
    const connections = ["rate_limiter", "ws_commands", "ws_subscriber"]
    const all = (m: Exposition, value: number) =>
      connections.every((connection) => m.value("talab_redis_up", { connection }) === value)
    await until((m) => all(m, 1), "Redis up")
    await redis.stop()
    await until((m) => all(m, 0), "Redis down")
    await redis.start()
    await until((m) => all(m, 1), "Redis up again")
  }, 60_000)
})

/** Runs one statement on its own connection, committed when it returns. */
const runOutside = async (url: string, statement: (client: pg.Client) => Promise<unknown>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await statement(client)
  } finally {
    await client.end()
  }
}
