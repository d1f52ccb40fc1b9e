import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

/*
 * The server's metrics, in Effect's global metric registry (what @effect/opentelemetry exports over OTLP and
 * what `/metrics` prints). Like that registry they are per process. Recording is off until a telemetry
 * layer turns it on (METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT), so without telemetry every recorder
 * below is one branch and nothing else.
 */

let recorders = 0

/** Turns recording on for as long as the returned function is not called. */
export const startRecording = (): (() => void) => {
  recorders += 1
  let stopped = false
  return () => {
    if (stopped) return
    stopped = true
    recorders -= 1
  }
}

/** Whether a telemetry layer is recording metrics in this process. */
export const isRecording = () => recorders > 0

const httpRequests = Metric.counter("talab_http_requests_total", {
  description: "HTTP requests answered, by method, route pattern and status",
  incremental: true
})

const httpRequestDuration = Metric.histogram(
  "talab_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "Time from receiving an HTTP request to its response being ready, by method, route pattern and status"
)

const openSockets = Metric.gauge("talab_ws_open_sockets", {
  description: "WebSockets open on this instance (authenticated or not)"
})

const messagesDelivered = Metric.counter("talab_ws_messages_delivered_total", {
  description: "Chat messages written to a WebSocket of this instance (one per receiving socket)",
  incremental: true
})

const pushQueueDepth = Metric.gauge("talab_push_queue_depth", {
  description: "Push notifications due now and not yet claimed by a dispatcher"
})

const pushQueueAge = Metric.gauge("talab_push_queue_oldest_age_seconds", {
  description: "How long the oldest due push notification has been waiting past its due time (0 when none)"
})

const pushFailures = Metric.counter("talab_push_failures_total", {
  description: "Pushes a provider did not deliver, by provider, outcome (retryable, failed, unregistered) and reason",
  incremental: true
})

const rateLimitRefusals = Metric.counter("talab_rate_limit_refusals_total", {
  description: "Calls refused by a rate limit, by limit (auth, otp, api, ws_messages)",
  incremental: true
})

const dbPoolConnections = Metric.gauge("talab_db_pool_connections", {
  description: "Connections of this instance's database pool, by state (in_use, idle, waiting = callers queued)"
})

const dbPoolMax = Metric.gauge("talab_db_pool_max_connections", {
  description: "The most connections this instance's database pool opens"
})

const wsHandshakes = Metric.counter("talab_ws_handshakes_total", {
  description:
    "WebSocket upgrade requests, by outcome (accepted, refused) and reason (accepted, upgrade_required, rate_limited, origin_not_allowed, handshake_failed)",
  incremental: true
})

const wsCloses = Metric.counter("talab_ws_closes_total", {
  description: "WebSockets closed, by close code (1006: cut without a close frame; codes nobody defined: other)",
  incremental: true
})

const writeBatches = Metric.counter("talab_write_batches_total", {
  description:
    "Batches of two or more writes, by kind (messages, requests, offers) and outcome (stored together, or fell_back: failed as a whole, each write then stored alone)",
  incremental: true
})

const redisUp = Metric.gauge("talab_redis_up", {
  description: "1 while this instance's Redis connection is ready, 0 while it is away, by connection"
})

const outboxAge = Metric.gauge("talab_outbox_oldest_unpublished_age_seconds", {
  description: "How long the oldest domain event still awaiting its consumer has waited (0 when none)"
})

const eventLoopLagP50 = Metric.gauge("talab_event_loop_lag_p50_seconds", {
  description: "Median event-loop delay since the previous collection"
})
const eventLoopLagP99 = Metric.gauge("talab_event_loop_lag_p99_seconds", {
  description: "99th percentile event-loop delay since the previous collection"
})
const eventLoopLagMax = Metric.gauge("talab_event_loop_lag_max_seconds", {
  description: "Longest event-loop delay since the previous collection"
})

/*
 * Effect caches a metric's series by the identity of its label array, so each label combination keeps one
 * array: recording a request is then a map lookup and a hook update, not a key rebuilt and hashed.
 */
const labelCache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
const labels = (cacheKey: string, make: () => ReadonlyArray<readonly [string, string]>) => {
  let found = labelCache.get(cacheKey)
  if (found === undefined) {
    found = make().map(([key, value]) => MetricLabel.make(key, value))
    labelCache.set(cacheKey, found)
  }
  return found
}
const none: ReadonlyArray<MetricLabel.MetricLabel> = []

/** One answered HTTP request. `route` is the route's pattern, never the raw path. */
export const recordHttpRequest = (method: string, route: string, status: number, seconds: number) => {
  if (recorders === 0) return
  const tags = labels(`http ${method} ${route} ${status}`, () => [
    ["method", method],
    ["route", route],
    ["status", String(status)]
  ])
  httpRequests.unsafeUpdate(1, tags)
  httpRequestDuration.unsafeUpdate(seconds, tags)
}

export const recordOpenSockets = (count: number) => {
  if (recorders > 0) openSockets.unsafeUpdate(count, none)
}

export const recordMessagesDelivered = (count: number) => {
  if (recorders > 0 && count > 0) messagesDelivered.unsafeUpdate(count, none)
}

type HandshakeRefusal = "upgrade_required" | "rate_limited" | "origin_not_allowed" | "handshake_failed"

/** One WebSocket upgrade request: accepted (reason `undefined`) or refused for `reason`. */
export const recordWebSocketHandshake = (refusal: HandshakeRefusal | undefined) => {
  if (recorders === 0) return
  const reason = refusal ?? "accepted"
  wsHandshakes.unsafeUpdate(
    1,
    labels(`handshake ${reason}`, () => [
      ["outcome", refusal === undefined ? "accepted" : "refused"],
      ["reason", reason]
    ])
  )
}

/*
 * A peer may close with any code from 3000 to 4999: those the protocol does not define are counted together,
 * so a client cannot grow the series without bound.
 */
const closeCodeLabel = (code: number) =>
  (code >= 1000 && code <= 1015) || code === 4008 || code === 4401 ? String(code) : "other"

/** One WebSocket closed with `code` (the close frame's, or 1005/1006 when there was none). */
export const recordWebSocketClose = (code: number) => {
  if (recorders === 0) return
  const label = closeCodeLabel(code)
  wsCloses.unsafeUpdate(
    1,
    labels(`close ${label}`, () => [["code", label]])
  )
}

export const recordRateLimitRefusal = (limit: string) => {
  if (recorders > 0)
    rateLimitRefusals.unsafeUpdate(
      1,
      labels(`limit ${limit}`, () => [["limit", limit]])
    )
}

export const recordPushFailure = (provider: string, outcome: string, reason: string) => {
  if (recorders === 0) return
  pushFailures.unsafeUpdate(
    1,
    labels(`push ${provider} ${outcome} ${reason}`, () => [
      ["provider", provider],
      ["outcome", outcome],
      ["reason", reason]
    ])
  )
}

/** What is written in batches (db/WriteBatches.ts). */
export type WriteBatchKind = "messages" | "requests" | "offers"

/** One batch of two or more writes: stored in its one transaction, or fallen back to one transaction each. */
export const recordWriteBatch = (kind: WriteBatchKind, outcome: "stored" | "fell_back") => {
  if (recorders === 0) return
  writeBatches.unsafeUpdate(
    1,
    labels(`batch ${kind} ${outcome}`, () => [
      ["kind", kind],
      ["outcome", outcome]
    ])
  )
}

export const recordPushQueue = (depth: number, oldestAgeSeconds: number) => {
  pushQueueDepth.unsafeUpdate(depth, none)
  pushQueueAge.unsafeUpdate(oldestAgeSeconds, none)
}

export interface PoolUse {
  readonly inUse: number
  readonly idle: number
  readonly waiting: number
  readonly max: number
}

const pools = new Set<() => PoolUse>()

/** Registers a database pool whose use the metrics report; the returned function unregisters it. */
export const watchPool = (read: () => PoolUse): (() => void) => {
  pools.add(read)
  return () => void pools.delete(read)
}

/** The use of every pool of this process, added up; undefined when there is none. */
export const poolUse = (): PoolUse | undefined => {
  if (pools.size === 0) return undefined
  const total = { inUse: 0, idle: 0, waiting: 0, max: 0 }
  for (const read of pools) {
    const use = read()
    total.inUse += use.inUse
    total.idle += use.idle
    total.waiting += use.waiting
    total.max += use.max
  }
  return total
}

export const recordPoolUse = (use: PoolUse) => {
  dbPoolConnections.unsafeUpdate(
    use.inUse,
    labels("pool in_use", () => [["state", "in_use"]])
  )
  dbPoolConnections.unsafeUpdate(
    use.idle,
    labels("pool idle", () => [["state", "idle"]])
  )
  dbPoolConnections.unsafeUpdate(
    use.waiting,
    labels("pool waiting", () => [["state", "waiting"]])
  )
  dbPoolMax.unsafeUpdate(use.max, none)
}

const redisConnections = new Map<string, () => boolean>()

/**
 * Registers a Redis connection whose readiness the metrics report as `talab_redis_up{connection}`; the returned
 * function unregisters it.
 */
export const watchRedis = (connection: string, isReady: () => boolean): (() => void) => {
  redisConnections.set(connection, isReady)
  return () => {
    if (redisConnections.get(connection) === isReady) redisConnections.delete(connection)
  }
}

export const recordRedisReadiness = () => {
  for (const [connection, isReady] of redisConnections) {
    redisUp.unsafeUpdate(
      isReady() ? 1 : 0,
      labels(`redis ${connection}`, () => [["connection", connection]])
    )
  }
}

export const recordOutboxAge = (oldestAgeSeconds: number) => outboxAge.unsafeUpdate(oldestAgeSeconds, none)

export const recordEventLoopLag = (p50Seconds: number, p99Seconds: number, maxSeconds: number) => {
  eventLoopLagP50.unsafeUpdate(p50Seconds, none)
  eventLoopLagP99.unsafeUpdate(p99Seconds, none)
  eventLoopLagMax.unsafeUpdate(maxSeconds, none)
}

/** Gauges that exist from the start, so a scrape shows them at 0 before anything happened. */
export const registerGauges = () => {
  for (const gauge of [
    openSockets,
    pushQueueDepth,
    pushQueueAge,
    outboxAge,
    eventLoopLagP50,
    eventLoopLagP99,
    eventLoopLagMax
  ]) {
    gauge.register()
  }
  messagesDelivered.register()
}
