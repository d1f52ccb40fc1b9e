import { Worker } from "node:worker_threads"

/** One HTTP call of a load: a path under `baseUrl`, headers and an optional JSON body (or a raw one, sent as is). */
export interface Call {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly rawBody?: string
}

export interface LoadOptions {
  /** e.g. http://127.0.0.1:54321/api/v1 — loopback only. */
  readonly baseUrl: string
  /** One list of calls per concurrent client; each client makes its calls one after the other. */
  readonly clients: ReadonlyArray<ReadonlyArray<Call>>
  /** The load stops at this duration, or earlier once every client has made all its calls. */
  readonly durationMs: number
  /** Start each client's list again when it is done, until the time is up. Default false. */
  readonly cycle?: boolean
  /** Statuses that count as success (others are counted as errors, with the first one shown). Default 2xx. */
  readonly expectStatuses?: ReadonlyArray<number>
}

export interface LoadReport {
  readonly name: string
  readonly clients: number
  readonly requests: number
  readonly errors: number
  readonly statuses: Readonly<Record<string, number>>
  readonly elapsedMs: number
  readonly perSecond: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
  readonly firstError?: string
}

interface WorkerResult {
  readonly latencies: Float64Array
  readonly statuses: Record<string, number>
  readonly elapsedMs: number
  readonly firstError?: string
}

/*
 * The clients run in a worker thread, so the load does not share the server's event loop when both
 * live in one process. Plain JavaScript: the worker is not compiled. They call through node:http with
 * kept-alive connections, not fetch: on two cores the load takes CPU from the server it measures, and fetch
 * cost about 1 ms of it per GET and 3 ms per POST, node:http a third of that.
 */
const workerSource = `
const http = require("node:http")
const { parentPort, workerData } = require("node:worker_threads")
const { baseUrl, clients, durationMs, cycle, expectStatuses } = workerData
const base = new URL(baseUrl)
// One kept-alive connection per client at most (a client waits for each answer before its next call).
const agent = new http.Agent({ keepAlive: true, maxSockets: clients.length })
const latencies = []
const statuses = {}
let firstError
const started = performance.now()
const deadline = started + durationMs
const send = (call) =>
  new Promise((resolve) => {
    const body =
      call.rawBody !== undefined ? call.rawBody : call.body === undefined ? undefined : JSON.stringify(call.body)
    const headers = { ...(call.body === undefined ? {} : { "content-type": "application/json" }), ...call.headers }
    if (body !== undefined) headers["content-length"] = Buffer.byteLength(body)
    const request = http.request(
      { agent, host: base.hostname, port: base.port, method: call.method, path: base.pathname + call.path, headers },
      (response) => {
        const chunks = []
        response.on("data", (chunk) => chunks.push(chunk))
        response.on("end", () => resolve({ status: String(response.statusCode), text: Buffer.concat(chunks).toString() }))
        response.on("error", (error) => resolve({ status: "failed", text: String(error) }))
      }
    )
    request.on("error", (error) => resolve({ status: "failed", text: String(error) }))
    request.end(body)
  })
const run = async (calls) => {
  for (let i = 0; performance.now() < deadline && calls.length > 0; i++) {
    if (i >= calls.length && !cycle) break
    const call = calls[i % calls.length]
    const t0 = performance.now()
    const { status, text } = await send(call)
    latencies.push(performance.now() - t0)
    statuses[status] = (statuses[status] ?? 0) + 1
    if (!expectStatuses.includes(Number(status)) && firstError === undefined) firstError = status + " " + text.slice(0, 300)
  }
}
Promise.all(clients.map(run)).then(() => {
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  parentPort.postMessage({ latencies: sorted, statuses, elapsedMs: performance.now() - started, firstError }, [sorted.buffer])
})
`

/** The value at percentile `p` (nearest rank) of sorted values. */
export const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

const SUCCESS = Array.from({ length: 100 }, (_, i) => 200 + i)

/** Runs a load with bounded concurrency (one worker, one loop per client) and bounded duration. */
export const runLoad = (name: string, options: LoadOptions): Promise<LoadReport> =>
  new Promise<WorkerResult>((resolve, reject) => {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        baseUrl: options.baseUrl,
        clients: options.clients,
        durationMs: options.durationMs,
        cycle: options.cycle ?? false,
        expectStatuses: options.expectStatuses ?? SUCCESS
      }
    })
    worker.once("message", (result: WorkerResult) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once("error", reject)
  }).then(({ latencies, statuses, elapsedMs, firstError }) => {
    const expected = new Set((options.expectStatuses ?? SUCCESS).map(String))
    const errors = Object.entries(statuses).reduce(
      (sum, [status, count]) => sum + (expected.has(status) ? 0 : count),
      0
    )
    return {
      name,
      clients: options.clients.length,
      requests: latencies.length,
      errors,
      statuses,
      elapsedMs,
      perSecond: latencies.length / (elapsedMs / 1000),
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: latencies.length === 0 ? Number.NaN : latencies[latencies.length - 1]!,
      ...(firstError === undefined ? {} : { firstError })
    }
  })

/** The reports as a table: one row per scenario, latencies in milliseconds. */
export const formatReports = (reports: ReadonlyArray<LoadReport>) => {
  const rows = [
    ["scenario", "clients", "requests", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms"],
    ...reports.map((r) => [
      r.name,
      String(r.clients),
      String(r.requests),
      String(r.errors),
      r.perSecond.toFixed(0),
      r.p50.toFixed(1),
      r.p95.toFixed(1),
      r.p99.toFixed(1),
      r.max.toFixed(1)
    ])
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")
  )
  const errors = reports
    .filter((r) => r.firstError !== undefined)
    .map((r) => `  ${r.name}: first unexpected answer ${r.firstError}`)
  return [...lines, ...errors].join("\n")
}

/** BENCH_SECONDS and BENCH_CLIENTS, as every scenario reads them. */
export const benchSettings = () => ({
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  clients: Number(process.env.BENCH_CLIENTS ?? 50)
})
