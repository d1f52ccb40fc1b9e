/*
 * Marketplace benchmark on PostgreSQL: GET /requests (a page of 20 out of 100,000 requests) and POST /offers,
 * each under 50 concurrent clients for ~10 s, printing p50/p95/p99 latency and requests per second.
 *
 *   npx tsx apps/server/bench/scenarios/marketplace.ts       (from the repository root)
 *   BENCH_SECONDS=10 BENCH_CLIENTS=50 …            to change the load
 *   BENCH_EXTRA=1 …                                 adds control reads (see EXTRA)
 *
 * A real server (testkit's startTestServer) on a fresh database with high rate limits, seeded in SQL
 * (bench/seed.ts). The load runs in a worker thread so it does not share the server's event loop; both
 * talk over loopback only, and every loop is bounded by time and by its list of inputs.
 */

import { Worker } from "node:worker_threads"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { startTestServer, type TestServer } from "@talab/testkit"
import { Effect, Logger, LogLevel, Redacted } from "effect"
import { createBenchDatabase, SEED, seedId, seedMarketplace } from "../seed.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50)
/** BENCH_EXTRA=1 adds control reads (GET /users/me, a narrow filter, own lists) to tell fixed cost from COUNT cost. */
const EXTRA = process.env.BENCH_EXTRA === "1"
const HIGH = 100_000_000
const rateLimits = { authPerMinute: HIGH, otpPer10Minutes: HIGH, apiPerMinute: HIGH, wsMessagesPerMinute: HIGH }

interface Call {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body?: unknown
}
interface LoadResult {
  readonly latencies: Array<number>
  readonly statuses: Record<string, number>
  readonly elapsedMs: number
  readonly sample?: string
}

/** Each client loops over its own calls (cycling when `cycle`) until the time is up. Plain JS: it runs in a worker. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { apiUrl, durationMs, clients, cycle } = workerData
const latencies = []
const statuses = {}
let sample
const started = performance.now()
const deadline = started + durationMs
const loop = async ({ token, calls }) => {
  for (let i = 0; performance.now() < deadline; i++) {
    if (i >= calls.length && !cycle) break
    const call = calls[i % calls.length]
    const t0 = performance.now()
    const response = await fetch(apiUrl + call.path, {
      method: call.method,
      headers: { authorization: "Bearer " + token, ...(call.body ? { "content-type": "application/json" } : {}) },
      ...(call.body ? { body: JSON.stringify(call.body) } : {})
    })
    const text = await response.text()
    latencies.push(performance.now() - t0)
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
    if (response.status >= 400 && sample === undefined) sample = response.status + " " + text.slice(0, 300)
  }
}
Promise.all(clients.map(loop)).then(() =>
  parentPort.postMessage({ latencies, statuses, elapsedMs: performance.now() - started, sample })
)
`

const runLoad = (
  server: TestServer,
  clients: ReadonlyArray<{ token: string; calls: ReadonlyArray<Call> }>,
  durationMs: number,
  cycle: boolean
) =>
  new Promise<LoadResult>((resolve, reject) => {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { apiUrl: server.apiUrl, durationMs, clients, cycle }
    })
    worker.once("message", (result: LoadResult) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once("error", reject)
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const report = (name: string, result: LoadResult) => {
  const sorted = [...result.latencies].sort((a, b) => a - b)
  const ms = (n: number) => `${n.toFixed(1)} ms`
  console.log(`\n${name}`)
  console.log(
    `  requests ${sorted.length} in ${(result.elapsedMs / 1000).toFixed(1)} s = ${(sorted.length / (result.elapsedMs / 1000)).toFixed(0)} req/s`
  )
  console.log(
    `  p50 ${ms(percentile(sorted, 50))}  p95 ${ms(percentile(sorted, 95))}  p99 ${ms(percentile(sorted, 99))}  max ${ms(sorted.at(-1) ?? NaN)}`
  )
  console.log(`  statuses ${JSON.stringify(result.statuses)}${result.sample ? `  first error: ${result.sample}` : ""}`)
}

const call = async (server: TestServer, method: string, path: string, token?: string, body?: unknown) => {
  const response = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { "content-type": "application/json" } : {})
    },
    ...(body ? { body: JSON.stringify(body) } : {})
  })
  const json: any = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json.data
}

const signIn = async (server: TestServer, phone: string) => {
  await call(server, "POST", "/auth/request-otp", undefined, { phone_number: phone })
  const data = await call(server, "POST", "/auth/verify-otp", undefined, {
    phone_number: phone,
    otp_code: server.sms.lastCode(phone)
  })
  return data.tokens.access_token as string
}

/** Saudi mobile numbers outside the seed's +1555 range. */
const phone = (n: number) => `+9665${String(81_000_000 + n).padStart(8, "0")}`

interface Activity {
  readonly commits: number
  readonly inserted: number
  readonly updated: number
  readonly fetched: number
}
/** Counters of pg_stat_database for one database (they lag by up to the stats flush interval). */
const databaseActivity = (url: string, name: string): Promise<Activity> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql`SELECT pg_stat_force_next_flush()`.pipe(Effect.ignore),
        sql<Activity>`SELECT xact_commit::float8 AS commits, tup_inserted::float8 AS inserted, tup_updated::float8 AS updated,
                             tup_fetched::float8 AS fetched
                      FROM pg_stat_database WHERE datname = ${name}`
      )
    ).pipe(
      Effect.map((rows) => rows[0]!),
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

const main = async () => {
  const database = await createBenchDatabase("talab_bench")
  const adminPhone = phone(0)
  const server = await startTestServer({
    databaseUrl: database.url,
    settings: { rateLimits, adminPhoneNumbers: [adminPhone] }
  })
  try {
    const started = Date.now()
    await Effect.runPromise(
      seedMarketplace.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(database.url), maxConnections: 1 })),
        Effect.asVoid,
        Logger.withMinimumLogLevel(LogLevel.Warning)
      )
    )
    console.log(`seeded ${SEED.requests} requests (and the rest) in ${((Date.now() - started) / 1000).toFixed(1)} s`)

    const admin = await signIn(server, adminPhone)
    const sellers: Array<string> = []
    // One seller more than clients: the last one measures POST /offers alone.
    for (let c = 1; c <= CLIENTS + 1; c++) {
      const token = await signIn(server, phone(c))
      const profile = await call(server, "POST", "/seller-profiles", token, {
        business_name: `Bench Shop ${c}`,
        location_district: "Olaya"
      })
      await call(server, "PUT", `/admin/seller-profiles/${profile.id}/approve`, admin)
      sellers.push(token)
    }
    const total = (await call(server, "GET", "/requests?per_page=1", sellers[0])).pagination.total
    console.log(`${CLIENTS} approved sellers signed in; GET /requests sees ${total} active requests`)

    // Reads, each first alone (one client, the latency without queueing) then under load.
    const reads: ReadonlyArray<readonly [string, string]> = [
      ["requests", "/requests"],
      ...(EXTRA
        ? ([
            ["me", "/users/me"],
            ["requests-city", "/requests?location_city=Jeddah&category=accessory"],
            ["requests-my", "/requests/my"],
            ["offers-my", "/offers/my"]
          ] as const)
        : [])
    ]
    for (const [, path] of reads) {
      const one = [{ token: sellers[0]!, calls: [{ method: "GET", path } as Call] }]
      await runLoad(server, one, 500, true)
      report(`GET ${path}, 1 client, 3 s (no queueing)`, await runLoad(server, one, 3_000, true))
      const many = sellers.slice(0, CLIENTS).map((token) => ({ token, calls: [{ method: "GET", path } as Call] }))
      await runLoad(server, many, 1_000, true)
      report(
        `GET ${path}${path === "/requests" ? ` (page 1 of ${total} active)` : ""}, ${CLIENTS} clients, ${SECONDS} s`,
        await runLoad(server, many, SECONDS * 1_000, true)
      )
    }

    // POST /offers: each client offers on its own active requests without offers (never a duplicate).
    const active = Array.from(
      { length: SEED.requests - SEED.requestsWithOffers },
      (_, k) => SEED.requestsWithOffers + 1 + k
    ).filter((i) => i % 5 !== 0)
    const perClient = Math.floor(active.length / (CLIENTS + 1))
    const offerClients = sellers.map((token, c) => ({
      token,
      calls: active.slice(c * perClient, (c + 1) * perClient).map(
        (i): Call => ({
          method: "POST",
          path: "/offers",
          body: { request_id: seedId("request", i), price: 1234.5, availability: "Today", condition_notes: "Sealed" }
        })
      )
    }))
    const solo = offerClients.at(-1)!
    await runLoad(server, [{ token: solo.token, calls: solo.calls.slice(0, 20) }], 2_000, false)
    report(
      "POST /offers, 1 client, 3 s (no queueing)",
      await runLoad(server, [{ token: solo.token, calls: solo.calls.slice(20) }], 3_000, false)
    )
    const clients = offerClients.slice(0, CLIENTS)
    await runLoad(
      server,
      clients.map((client) => ({ token: client.token, calls: client.calls.slice(0, 5) })),
      2_000,
      false
    )
    const before = await databaseActivity(database.url, database.name)
    const measured = await runLoad(
      server,
      clients.map((client) => ({ token: client.token, calls: client.calls.slice(5) })),
      SECONDS * 1_000,
      false
    )
    const after = await databaseActivity(database.url, database.name)
    report(`POST /offers, ${CLIENTS} clients, ${SECONDS} s`, measured)
    const per = (key: keyof Activity) => ((after[key] - before[key]) / measured.latencies.length).toFixed(1)
    console.log(
      `  database work per request (whole database, dispatcher included): ${per("commits")} commits, ${per("inserted")} rows inserted, ` +
        `${per("updated")} updated, ${per("fetched")} fetched`
    )

    const count = await Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM offers`).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(database.url), maxConnections: 1 })),
        Effect.orDie
      )
    )
    console.log(`\noffers in the database after the run: ${count[0]?.n}`)
  } finally {
    await server.close()
    await database.drop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
