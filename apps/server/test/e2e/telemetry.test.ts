import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parsePrometheusText } from "../../../../test-support/prometheus.js"
import {
  type ChildServer,
  freePort,
  listeningPorts,
  migratedDataDir,
  startServer,
  waitUntilLive
} from "../support/child-server.js"
import { eventually } from "../support/eventually.js"
import { WsClient } from "../support/ws-client.js"

/*
 * Telemetry of the real server (src/main.ts in a child process): spans exported over OTLP/HTTP JSON to a
 * receiver run by this test, Prometheus metrics on METRICS_PORT, and nothing of either by default.
 */

interface Received {
  readonly path: string
  readonly body: any
}

/** An OTLP/HTTP receiver: keeps every JSON export request it gets. */
const startReceiver = async () => {
  const received: Array<Received> = []
  const server: Server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      try {
        received.push({ path: request.url ?? "", body: JSON.parse(body) })
      } catch {
        received.push({ path: request.url ?? "", body: { unreadable: body } })
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(r)) }
}

type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number }
interface ExportedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: Record<string, unknown>
  readonly service: unknown
}

const otlpValue = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue))
const attributesOf = (list: ReadonlyArray<{ key: string; value: OtlpValue }> = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, otlpValue(value)]))

const spansOf = (received: ReadonlyArray<Received>): Array<ExportedSpan> =>
  received
    .filter((r) => r.path === "/v1/traces")
    .flatMap((r) =>
      (r.body.resourceSpans ?? []).flatMap((resourceSpans: any) => {
        const service = attributesOf(resourceSpans.resource?.attributes)["service.name"]
        return (resourceSpans.scopeSpans ?? []).flatMap((scope: any) =>
          (scope.spans ?? []).map((span: any) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            attributes: attributesOf(span.attributes),
            service
          }))
        )
      })
    )

const dataDir = mkdtempSync(join(tmpdir(), "talab-telemetry-"))
const smsOutbox = join(dataDir, "sms.jsonl")
let phoneCounter = 0
const newPhone = () =>
  `+96655${String(Date.now() % 100_000).padStart(5, "0")}${String(phoneCounter++).padStart(2, "0")}`

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

const signIn = async (baseUrl: string) => {
  const phone = newPhone()
  const requested = await fetch(`${baseUrl}/api/v1/auth/request-otp`, json({ phone_number: phone }))
  expect(requested.status).toBe(200)
  const sent = readFileSync(smsOutbox, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((sms) => sms.to === phone)
  const verified = await fetch(
    `${baseUrl}/api/v1/auth/verify-otp`,
    json({ phone_number: phone, otp_code: sent.at(-1).code })
  )
  expect(verified.status).toBe(200)
  const data = ((await verified.json()) as any).data
  return { userId: data.user.id as string, token: data.tokens.access_token as string }
}

const getMe = (baseUrl: string, token: string) =>
  fetch(`${baseUrl}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })

const API_LIMIT = 20

describe("telemetry on: OTEL_EXPORTER_OTLP_ENDPOINT and METRICS_PORT", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let server: ChildServer
  let baseUrl: string
  let metricsUrl: string

  const scrape = async () => {
    const response = await fetch(metricsUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    return parsePrometheusText(await response.text())
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    const [port, metricsPort] = [await freePort(), await freePort()]
    baseUrl = `http://127.0.0.1:${port}`
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    server = startServer({
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATA_DIR: migratedDataDir(),
      SMS_OUTBOX_FILE: smsOutbox,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "talab-telemetry-test",
      // Export each batch of spans 50 ms after its first span, not the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: "50",
      RATE_LIMIT_API_PER_MINUTE: String(API_LIMIT),
      RATE_LIMIT_AUTH_PER_MINUTE: "100"
    })
    await waitUntilLive(port, server)
  }, 90_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM")
      await server.exited
    }
    await receiver?.close()
  })

  it("exports a span per request with its route, status and user, and the SQL statements as its children", async () => {
    const { userId, token } = await signIn(baseUrl)
    const me = await getMe(baseUrl, token)
    expect(me.status).toBe(200)

    const request = await eventually(
      () =>
        spansOf(receiver.received).find(
          (span) => span.attributes["url.path"] === "/api/v1/users/me" && span.attributes["enduser.id"] === userId
        ),
      "the request's span"
    )
    expect(request.name).toBe("http.server GET")
    expect(request.service).toBe("talab-telemetry-test")
    expect(request.attributes).toMatchObject({
      "http.route": "/api/v1/users/me",
      "http.response.status_code": 200,
      "http.request.method": "GET",
      "enduser.id": userId
    })
    // The bearer token never leaves in a span.
    expect(JSON.stringify(request.attributes)).not.toContain(token)

    const sql = await eventually(() => {
      const children = spansOf(receiver.received).filter(
        (span) =>
          span.traceId === request.traceId && span.parentSpanId === request.spanId && span.name === "sql.execute"
      )
      return children.length > 0 ? children : undefined
    }, "the request's SQL spans")
    expect(sql[0]!.attributes).toMatchObject({ "db.system.name": "postgresql" })
    expect(sql.map((span) => String(span.attributes["db.query.text"])).join("\n")).toMatch(/sessions/)
  })

  it("redacts a request's span as the log is: its path without the query, no header", async () => {
    const { userId, token } = await signIn(baseUrl)
    const secrets = ["query-secret-4821", "cookie-secret-9917", "api-key-secret-3306", "0550001122"]
    const response = await fetch(`${baseUrl}/api/v1/users/me?token=${secrets[0]}&phone=${secrets[3]}`, {
      headers: {
        authorization: `Bearer ${token}`,
        cookie: `session=${secrets[1]}`,
        "x-api-key": secrets[2]!,
        "user-agent": "telemetry-test"
      }
    })
    expect(response.status).toBe(200)

    const span = await eventually(
      () =>
        spansOf(receiver.received).find(
          (span) => span.attributes["url.path"] === "/api/v1/users/me" && span.attributes["enduser.id"] === userId
        ),
      "the request's span"
    )
    expect(span.attributes).toMatchObject({ "http.request.method": "GET", "http.response.status_code": 200 })
    const keys = Object.keys(span.attributes)
    expect(keys).not.toContain("url.full")
    expect(keys).not.toContain("url.query")
    expect(
      keys.filter((key) => key.startsWith("http.request.header.") || key.startsWith("http.response.header."))
    ).toEqual([])
    const exported = JSON.stringify(spansOf(receiver.received))
    for (const secret of [...secrets, token]) expect(exported).not.toContain(secret)
  })

  it("serves /metrics on METRICS_PORT only, in a format a Prometheus parser reads", async () => {
    const onPublicPort = await fetch(`${baseUrl}/metrics`)
    expect(onPublicPort.status).toBe(404)
    expect(onPublicPort.headers.get("content-type")).toContain("application/json")
    expect((await fetch(metricsUrl.replace("/metrics", "/api/v1/users/me"))).status).toBe(404)

    const metrics = await scrape()
    expect(metrics.types.get("talab_http_requests_total")).toBe("counter")
    expect(metrics.types.get("talab_http_request_duration_seconds")).toBe("histogram")
    expect(metrics.types.get("talab_ws_open_sockets")).toBe("gauge")
    expect(metrics.value("talab_push_queue_depth")).toBe(0)
    expect(metrics.value("talab_push_queue_oldest_age_seconds")).toBe(0)
    expect(metrics.value("talab_event_loop_lag_max_seconds")).toBeGreaterThanOrEqual(0)
    // The embedded database is one pooled connection, idle between requests. The background jobs (the alert
    // matcher polls every 250 ms) take it for a moment now and then, so a scrape may catch it in use.
    expect(metrics.value("talab_db_pool_max_connections")).toBe(1)
    const inUse = metrics.value("talab_db_pool_connections", { state: "in_use" })
    expect(inUse! + metrics.value("talab_db_pool_connections", { state: "idle" })!).toBe(1)
    const idle = await eventually(async () => {
      const later = await scrape()
      return later.value("talab_db_pool_connections", { state: "idle" }) === 1 ? later : undefined
    }, "the pool connection idle")
    expect(idle.value("talab_db_pool_connections", { state: "in_use" })).toBe(0)
    expect(idle.value("talab_db_pool_connections", { state: "waiting" })).toBe(0)
  })

  it("counts requests by route pattern and status, never by raw path", async () => {
    const { token } = await signIn(baseUrl)
    const route = { method: "GET", route: "/api/v1/users/me", status: "200" }
    const unmatched = { method: "GET", route: "unmatched", status: "404" }
    const before = await scrape()
    for (let i = 0; i < 3; i++) expect((await getMe(baseUrl, token)).status).toBe(200)
    expect((await fetch(`${baseUrl}/api/v1/no-such-thing/12345`)).status).toBe(404)
    const after = await scrape()

    const delta = (name: string, labels: Record<string, string>) =>
      (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0)
    expect(delta("talab_http_requests_total", route)).toBe(3)
    expect(delta("talab_http_request_duration_seconds_count", route)).toBe(3)
    expect(delta("talab_http_requests_total", unmatched)).toBe(1)
    expect(after.samples.some((sample) => JSON.stringify(sample.labels).includes("no-such-thing"))).toBe(false)
  })

  it("counts rate-limit refusals by limit", async () => {
    const { token } = await signIn(baseUrl)
    const before = (await scrape()).value("talab_rate_limit_refusals_total", { limit: "api" }) ?? 0
    const statuses: Array<number> = []
    for (let i = 0; i <= API_LIMIT; i++) statuses.push((await getMe(baseUrl, token)).status)
    expect(statuses.filter((status) => status === 429)).toHaveLength(1)
    const after = await scrape()
    expect(after.value("talab_rate_limit_refusals_total", { limit: "api" })).toBe(before + 1)
    expect(after.value("talab_http_requests_total", { method: "GET", route: "/api/v1/users/me", status: "429" })).toBe(
      1
    )
  })

  it("counts open sockets", async () => {
    const { token } = await signIn(baseUrl)
    const client = await WsClient.connect(`${baseUrl.replace("http", "ws")}/ws`)
    expect((await client.auth(token)).type).toBe("auth_ok")
    expect((await scrape()).value("talab_ws_open_sockets")).toBe(1)
    client.close()
    await client.closed
    await eventually(
      async () => ((await scrape()).value("talab_ws_open_sockets") === 0 ? true : undefined),
      "0 sockets"
    )
    const frames = await eventually(() => {
      const found = spansOf(receiver.received).filter((span) => span.name === "ws.frame")
      return found.length > 0 ? found : undefined
    }, "the frame spans")
    expect(frames.map((span) => span.attributes["ws.frame.type"])).toContain("auth")
    expect(frames.every((span) => span.parentSpanId === undefined)).toBe(true)
  })
})

describe("telemetry off by default", () => {
  it("starts no exporter and no metrics listener, and /metrics is an unknown route", async () => {
    const receiver = await startReceiver()
    const port = await freePort()
    const server = startServer({
      PORT: String(port),
      DATA_DIR: migratedDataDir(),
      // Honoured by an OTLP exporter were one started: without OTEL_EXPORTER_OTLP_ENDPOINT none is.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    try {
      await waitUntilLive(port, server)
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200)
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404)
      // The public port alone (the embedded database is on a private Unix socket): no metrics listener.
      expect(listeningPorts(server.child.pid!)).toEqual([port])
    } finally {
      server.child.kill("SIGTERM")
      // Shutdown flushes every exporter there is, so after it nothing can still be on its way.
      expect(await server.exited).toEqual({ code: 0, signal: null })
      await receiver.close()
    }
    expect(receiver.received).toEqual([])
  }, 90_000)
})

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
