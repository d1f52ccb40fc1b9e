import { createServer, type Server } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { SqlClient } from "@effect/sql"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/AppConfig.js"
import {
  poolUse,
  recordEventLoopLag,
  recordOutboxAge,
  recordPoolUse,
  recordPushQueue,
  recordRedisReadiness,
  registerGauges,
  startRecording
} from "./Metrics.js"
import { observeGarbageCollection, processCollector } from "./ProcessMetrics.js"
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from "./Prometheus.js"

const ageSeconds = (now: Date, oldest: Date | null | undefined) =>
  oldest ? Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) : 0

/** The gauges read when collected rather than kept up to date on every change. */
const collector = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const loop = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const histogram = monitorEventLoopDelay({ resolution: 10 })
      histogram.enable()
      return histogram
    }),
    (histogram) => Effect.sync(() => histogram.disable())
  )
  yield* Effect.acquireRelease(Effect.sync(observeGarbageCollection), (stop) => Effect.sync(stop))
  const collectProcess = processCollector()
  return Effect.gen(function* () {
    collectProcess()
    recordRedisReadiness()
    const now = new Date(yield* Clock.currentTimeMillis)
    const [queue] = yield* sql<{ readonly depth: number; readonly oldest: Date | null }>`
        SELECT count(*)::int AS depth, min(next_attempt_at) AS oldest
        FROM notifications WHERE status = 'pending' AND next_attempt_at <= ${now}`
    recordPushQueue(queue?.depth ?? 0, ageSeconds(now, queue?.oldest))
    // Only RequestCreated events have a consumer (the alert matcher); the other kinds are a record, never processed.
    const [outbox] = yield* sql<{ readonly oldest: Date | null }>`
        SELECT min(created_at) AS oldest FROM outbox_events WHERE processed_at IS NULL AND type = 'RequestCreated'`
    recordOutboxAge(ageSeconds(now, outbox?.oldest))
    // perf_hooks reports nanoseconds; an empty histogram (nothing sampled yet) reports NaN.
    const seconds = (nanos: number) => (Number.isFinite(nanos) ? nanos / 1e9 : 0)
    recordEventLoopLag(seconds(loop.percentile(50)), seconds(loop.percentile(99)), seconds(loop.max))
    loop.reset()
    const pool = poolUse()
    if (pool !== undefined) recordPoolUse(pool)
  }).pipe(
    Effect.withTracerEnabled(false),
    // A scrape still answers (with the last values) when the database does not.
    Effect.catchAllCause((cause) => Effect.logWarning("Metrics: collection failed", cause))
  )
})

const listen = (server: Server, port: number, host: string) =>
  Effect.async<void, Error>((resume) => {
    const failed = (error: Error) => resume(Effect.fail(error))
    server.once("error", failed)
    server.listen(port, host, () => {
      server.off("error", failed)
      resume(Effect.void)
    })
  })

/** `GET /metrics` on its own listener: answered by nothing else, and nothing else is answered there. */
const serveMetrics = (port: number, host: string, collect: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
        response.writeHead(path === "/metrics" ? 405 : 404, { "content-type": "text/plain" }).end()
        return
      }
      Runtime.runPromise(runtime, collect).then(
        () => {
          response.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE })
          response.end(request.method === "HEAD" ? undefined : prometheusText())
        },
        () => response.writeHead(500).end()
      )
    })
    yield* Effect.acquireRelease(
      listen(server, port, host).pipe(
        Effect.mapError((cause) => new Error(`METRICS_PORT ${port}: ${cause.message}`, { cause }))
      ),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    yield* Effect.logInfo("Metrics listening").pipe(Effect.annotateLogs({ address: `http://${host}:${port}/metrics` }))
  })

/** How often the collected gauges are refreshed for the OTLP exporter, which reads the registry on its own. */
const OTLP_REFRESH = Duration.seconds(10)

/**
 * Metrics recording for the server's lifetime, when METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT is set:
 * the recorders switched on, the collected gauges refreshed (per scrape, and on a timer for OTLP), and the
 * Prometheus listener on METRICS_PORT. Nothing at all when neither is set.
 */
export const MetricsLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const { metricsPort, otlpEndpoint } = config.telemetry
    if (metricsPort === undefined && otlpEndpoint === undefined) return
    yield* Effect.acquireRelease(Effect.sync(startRecording), (stop) => Effect.sync(stop))
    registerGauges()
    const collect = yield* collector
    if (otlpEndpoint !== undefined) {
      yield* collect.pipe(Effect.repeat(Schedule.spaced(OTLP_REFRESH)), Effect.forkScoped)
    }
    if (metricsPort !== undefined) yield* serveMetrics(metricsPort, config.host, collect)
  })
)
