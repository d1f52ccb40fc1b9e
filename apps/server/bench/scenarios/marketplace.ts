/*
 * Marketplace benchmark on PostgreSQL: GET /requests/{id}, GET /requests (a page of 20 out of 100,000 requests),
 * POST /offers, POST /requests and POST /conversations/{id}/messages, each under 50 concurrent clients for ~10 s, printing p50/p95/p99 latency and requests per
 * second, and each as a ratio to the floor measured in the same run (bench/floor.ts: bare node:http + pg
 * answering GET /requests/{id}), which is the figure to compare between runs. Beside it the stack's floor
 * (bench/stack-floor.ts: the same answer from a bare HttpApi endpoint on @effect/sql-pg).
 *
 *   npx tsx apps/server/bench/scenarios/marketplace.ts       (from the repository root)
 *   BENCH_SECONDS=10 BENCH_CLIENTS=50 …            to change the load
 *   BENCH_EXTRA=1 …                                 adds control reads (see EXTRA)
 *   BENCH_READ_CACHE=off …                          the reads without the read cache (READ_CACHE=off)
 *   BENCH_MESSAGE_BATCH=off …                       each message in its own transaction (MESSAGE_BATCH=off)
 *   BENCH_ONLY=messages,offers …                    only these scenarios (and the floor): stack, detail, cold, list,
 *                                                   mixed, offers, requests, messages
 *   BENCH_STATEMENTS=1 …                            after each write scenario, PostgreSQL's statements by time
 *                                                   (needs pg_stat_statements in shared_preload_libraries; its
 *                                                   track_planning on for the time each statement took to plan)
 *
 * A real server (testkit's startTestServer) on a fresh database with high rate limits, seeded in SQL
 * (bench/seed.ts). The load runs in a worker thread so it does not share the server's event loop; both
 * talk over loopback only, and every loop is bounded by time and by its list of inputs.
 */

import { readFileSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { Effect, Logger, LogLevel, Redacted } from "effect"
import { type FloorServer, startFloorServer } from "../floor.js"
import { type Call, type LoadReport, runLoad } from "../load.js"
import { SEED, seedId, seedMarketplace } from "../seed.js"
import {
  approvedSeller,
  as,
  call,
  formatPercentiles,
  newRequestCall,
  onDatabase,
  runScenario,
  signIn,
  unlimitedRateLimits,
  withBenchServer,
  withProfile
} from "../setup.js"
import { startStackFloorServer } from "../stack-floor.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50)
/** BENCH_PROFILE=<dir> writes a CPU profile of the server's thread during each measured Talab load there. */
/** BENCH_EXTRA=1 adds control reads (GET /users/me, a narrow filter, own lists) to tell fixed cost from COUNT cost. */
const EXTRA = process.env.BENCH_EXTRA === "1"
const ONLY = process.env.BENCH_ONLY?.split(",").map((key) => key.trim())
const wanted = (scenario: string) => ONLY === undefined || ONLY.includes(scenario)
const STATEMENTS = process.env.BENCH_STATEMENTS === "1"
/** The requests the hot detail read cycles over, as the side-by-side measurement read 500. */
const HOT_REQUESTS = 500

const report = (result: LoadReport) => {
  console.log(`\n${result.name}`)
  console.log(
    `  requests ${result.requests} in ${(result.elapsedMs / 1000).toFixed(1)} s = ${result.perSecond.toFixed(0)} req/s`
  )
  console.log(`  ${formatPercentiles(result)}`)
  console.log(
    `  statuses ${JSON.stringify(result.statuses)}${result.firstError ? `  first error: ${result.firstError}` : ""}`
  )
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
  onDatabase(
    url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql`SELECT pg_stat_force_next_flush()`.pipe(Effect.ignore),
        sql<Activity>`SELECT xact_commit::float8 AS commits, tup_inserted::float8 AS inserted, tup_updated::float8 AS updated,
                             tup_fetched::float8 AS fetched
                      FROM pg_stat_database WHERE datname = ${name}`
      )
    ).pipe(Effect.map((rows) => rows[0]!))
  )

/** CPU (user + system, ms) of each backend process PostgreSQL runs for the database `name`, by pid. */
const backendCpu = async (url: string, name: string): Promise<Map<number, number>> => {
  const rows = await onDatabase(
    url,
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`
    )
  )
  const ticksPerMs = 100 / 1000
  const cpu = new Map<number, number>()
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / ticksPerMs)
    } catch {
      // Gone in between, or on another machine: not counted.
    }
  }
  return cpu
}

/** The CPU PostgreSQL's backends of the database spent between two readings (a backend new since counted whole). */
const cpuSpent = (before: Map<number, number>, after: Map<number, number>) => {
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/** Runs a load and prints the CPU PostgreSQL's backends of the database spent per call of it. */
const withDatabaseCpu = async (
  database: { readonly url: string; readonly name: string },
  perWhat: string,
  run: () => Promise<LoadReport>
) => {
  const before = await backendCpu(database.url, database.name)
  const result = await run()
  const after = await backendCpu(database.url, database.name)
  console.log(
    `  PostgreSQL CPU per ${perWhat} (its backends of this database): ${(cpuSpent(before, after) / result.requests).toFixed(2)} ms`
  )
  return result
}

/**
 * Runs a load and, with BENCH_STATEMENTS=1, prints the statements PostgreSQL ran for the database meanwhile,
 * the costliest first, with their time per call of the load (what a write's CPU goes to, by statement) and
 * the time each call of them took to plan (zero unless `pg_stat_statements.track_planning` is on).
 */
const withStatements = async (
  database: { readonly url: string; readonly name: string },
  run: () => Promise<LoadReport>
) => {
  if (!STATEMENTS) return run()
  const statements = (sql: SqlClient.SqlClient) =>
    sql<{ ms: number; planMs: number; calls: number; rows: number; query: string }>`
      SELECT s.total_exec_time AS ms, s.total_plan_time / greatest(s.calls, 1) AS "planMs", s.calls::float8 AS calls,
             s.rows::float8 AS rows, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = ${database.name} ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 12`
  await onDatabase(
    database.url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`, sql`SELECT pg_stat_statements_reset()`)
    )
  )
  const result = await run()
  const rows = await onDatabase(database.url, Effect.flatMap(SqlClient.SqlClient, statements))
  console.log("  statements by time (ms run per call of the load, calls, rows, ms planned per call of the statement):")
  for (const row of rows) {
    console.log(
      `    ${(row.ms / result.requests).toFixed(3).padStart(7)} ${String(row.calls).padStart(7)} ${String(row.rows).padStart(8)} ${row.planMs.toFixed(3).padStart(7)}  ${row.query}`
    )
  }
  return result
}

/**
 * Waits (up to a minute) until the work earlier loads left behind is done (requests waiting for the alert
 * matcher, notifications due for delivery), so the next load pays for its own background work only.
 */
const settle = async (database: { readonly url: string }) => {
  const started = Date.now()
  const waiting = () =>
    onDatabase(
      database.url,
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ n: number }>`
          SELECT (SELECT count(*) FROM outbox_events WHERE processed_at IS NULL AND type = 'RequestCreated')::int
               + (SELECT count(*) FROM notifications WHERE status = 'pending' AND next_attempt_at <= now())::int AS n`
      )
    ).then((rows) => rows[0]!.n)
  let left = await waiting()
  while (left > 0 && Date.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    left = await waiting()
  }
  console.log(
    `  settled in ${((Date.now() - started) / 1000).toFixed(1)} s${left > 0 ? ` (${left} still waiting)` : ""}`
  )
}

/** A deterministic shuffle source, so runs compare. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
  return seed / 2 ** 32
}

const adminPhone = phone(0)
const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0123"

/** Every figure of the run, printed at the end beside the floor's. */
const figures: Array<LoadReport> = []
const measure = (result: LoadReport) => {
  figures.push(result)
  report(result)
  return result
}

/** A figure, profiled on this thread (the servers'; the load is in a worker) when BENCH_PROFILE is set. */
const profiled = async (name: string, run: () => Promise<LoadReport>) => measure(await withProfile(name, run))

const printRatios = (floor: LoadReport) => {
  console.log("\nratio to the floor (bare node:http + pg, GET /requests/{id}, same run):")
  console.log(`  ${"scenario".padEnd(58)} ${"req/s".padStart(7)} ${"p95 ms".padStart(8)} ${"ratio".padStart(6)}`)
  for (const figure of [floor, ...figures]) {
    const ratio = figure.perSecond / floor.perSecond
    console.log(
      `  ${figure.name.slice(0, 58).padEnd(58)} ${figure.perSecond.toFixed(0).padStart(7)} ${figure.p95.toFixed(1).padStart(8)} ${ratio.toFixed(2).padStart(6)}`
    )
  }
}

/**
 * The targets, each a ratio of req/s to the floor's in the same run (bare node:http + pg answering GET
 * /requests/{id}), and a p95 under 200 ms for every scenario under load (the spec's API target).
 */
const TARGETS: ReadonlyArray<readonly [prefix: string, ratio: number]> = [
  ["GET /requests/{id},", 1.3],
  ["GET /requests (page 1", 1.0],
  ["mixed", 0.8],
  ["cold GET /requests/{id}", 0.5],
  ["POST /conversations/{id}/messages,", 0.35],
  [`POST /requests, ${CLIENTS} clients`, 0.5],
  [`POST /offers, ${CLIENTS} clients`, 0.3]
]
const TARGET_P95_MS = 200

const printTargets = (floor: LoadReport) => {
  console.log(
    `\ntargets (ratio to the floor's ${floor.perSecond.toFixed(0)} req/s in this run; p95 under ${TARGET_P95_MS} ms):`
  )
  for (const [prefix, ratio] of TARGETS) {
    const figure = figures.find((f) => f.name.startsWith(prefix))
    const name = prefix.replace(/,.*$/, "").trim()
    if (figure === undefined) {
      console.log(`  ${name.padEnd(36)} ≥ ${ratio.toFixed(2)}: not measured`)
      continue
    }
    const measured = figure.perSecond / floor.perSecond
    const ratioMet = measured >= ratio
    const p95Met = figure.p95 < TARGET_P95_MS
    console.log(
      `  ${name.padEnd(36)} ≥ ${ratio.toFixed(2)}: ${measured.toFixed(2)} (${ratioMet ? "met" : `MISSED by ${(ratio - measured).toFixed(2)}`}), ` +
        `p95 ${figure.p95.toFixed(0)} ms (${p95Met ? "met" : "MISSED"})`
    )
  }
}

const main = () =>
  withBenchServer(
    "talab_bench",
    {
      rateLimits: unlimitedRateLimits,
      adminPhoneNumbers: [adminPhone],
      jwtSecret: Redacted.make(JWT_SECRET),
      // BENCH_READ_CACHE=off measures the reads from the database, as READ_CACHE=off serves them.
      ...(process.env.BENCH_READ_CACHE === "off" ? { readCache: { enabled: false, maxBytes: 1, ttlMs: 1 } } : {}),
      // BENCH_MESSAGE_BATCH=off stores each message in a transaction of its own (MESSAGE_BATCH=off).
      ...(process.env.BENCH_MESSAGE_BATCH === "off" ? { messageBatch: false } : {}),
      // BENCH_REQUEST_BATCH=off stores each request in a transaction of its own (REQUEST_BATCH=off).
      ...(process.env.BENCH_REQUEST_BATCH === "off" ? { requestBatch: false } : {}),
      // BENCH_OFFER_BATCH=off stores each offer in a transaction of its own (OFFER_BATCH=off).
      ...(process.env.BENCH_OFFER_BATCH === "off" ? { offerBatch: false } : {})
    },
    async (server, database) => {
      const started = Date.now()
      await onDatabase(database.url, seedMarketplace.pipe(Effect.asVoid, Logger.withMinimumLogLevel(LogLevel.Warning)))
      console.log(`seeded ${SEED.requests} requests (and the rest) in ${((Date.now() - started) / 1000).toFixed(1)} s`)

      const admin = await signIn(server, adminPhone)
      const sellers: Array<string> = []
      // One seller more than clients: the last one measures POST /offers alone.
      for (let c = 1; c <= CLIENTS + 1; c++) {
        sellers.push((await approvedSeller(server, admin.token, phone(c), `Bench Shop ${c}`)).token)
      }
      const total = (await call(server, "GET", "/requests?per_page=1", sellers[0])).pagination.total
      console.log(`${CLIENTS} approved sellers signed in; GET /requests sees ${total} active requests`)

      const load = (name: string, clients: ReadonlyArray<ReadonlyArray<Call>>, durationMs: number, cycle: boolean) =>
        runLoad(name, { baseUrl: server.apiUrl, clients, durationMs, cycle })

      // GET /requests/{id}: the floor, then Talab, on the same rows with the same clients' tokens. The requests
      // many users read again (HOT_REQUESTS of them, each client starting at its own place); the cold scenario
      // below reads the whole table at random.
      const detailClients = sellers.slice(0, CLIENTS).map((token, c) =>
        as(
          token,
          Array.from({ length: 200 }, (_, k) => ({
            method: "GET" as const,
            path: `/requests/${seedId("request", 1 + ((c * 10 + k) % HOT_REQUESTS))}`
          }))
        )
      )
      const detailLoad = (name: string, baseUrl: string, durationMs: number) =>
        runLoad(name, { baseUrl, clients: detailClients, durationMs, cycle: true, expectStatuses: [200] })
      /** Warms up, then measures the detail read on a reference server started for it alone. */
      const detailOnReference = async (name: string, start: () => Promise<FloorServer>) => {
        const reference = await start()
        try {
          await detailLoad("warm-up", reference.apiUrl, 1_000)
          return await withDatabaseCpu(database, `read by the ${name}`, () =>
            withProfile(name, () =>
              detailLoad(
                `${name}: GET /requests/{id}, ${CLIENTS} clients, ${SECONDS} s`,
                reference.apiUrl,
                SECONDS * 1_000
              )
            )
          )
        } finally {
          await reference.close()
        }
      }
      const floor = await detailOnReference("floor", () => startFloorServer(database.url, JWT_SECRET))
      report(floor)
      // The stack's own floor: HttpApi + @effect/sql-pg answering the same (bench/stack-floor.ts).
      if (wanted("stack")) {
        measure(await detailOnReference("stack floor", () => startStackFloorServer(database.url, JWT_SECRET)))
      }
      if (wanted("detail")) {
        await detailLoad("warm-up", server.apiUrl, 1_000)
        await profiled("detail", () =>
          detailLoad(`GET /requests/{id}, ${CLIENTS} clients, ${SECONDS} s`, server.apiUrl, SECONDS * 1_000)
        )
      }

      // Cold reads: a request at random of all of them, each client its own draw, so most reads are misses.
      const draw = random(38)
      const coldClients = sellers.slice(0, CLIENTS).map((token) =>
        as(
          token,
          Array.from({ length: 3_000 }, () => ({
            method: "GET" as const,
            path: `/requests/${seedId("request", 1 + Math.floor(draw() * SEED.requests))}`
          }))
        )
      )
      if (wanted("cold")) {
        await withDatabaseCpu(database, "uncached detail read", () =>
          profiled("cold detail", () =>
            runLoad(`cold GET /requests/{id} (random of ${SEED.requests}), ${CLIENTS} clients, ${SECONDS} s`, {
              baseUrl: server.apiUrl,
              clients: coldClients,
              durationMs: SECONDS * 1_000,
              cycle: false,
              expectStatuses: [200]
            })
          )
        )
      }

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
      for (const [, path] of wanted("list") ? reads : []) {
        const get: Call = { method: "GET", path }
        const one = [as(sellers[0]!, [get])]
        await load("warm-up", one, 500, true)
        measure(await load(`GET ${path}, 1 client, 3 s (no queueing)`, one, 3_000, true))
        const many = sellers.slice(0, CLIENTS).map((token) => as(token, [get]))
        await load("warm-up", many, 1_000, true)
        await profiled(`list ${path}`, () =>
          load(
            `GET ${path}${path === "/requests" ? ` (page 1 of ${total} active)` : ""}, ${CLIENTS} clients, ${SECONDS} s`,
            many,
            SECONDS * 1_000,
            true
          )
        )
      }

      // Mixed: 70 % page 1 of the list, 20 % a request (of the detail read's), 10 % a new request, shuffled.
      const mixDraw = random(7)
      const mixedClients = sellers.slice(0, CLIENTS).map((token, c) =>
        as(
          token,
          Array.from({ length: 200 }, (_, k): Call => {
            const roll = mixDraw()
            if (roll < 0.7) return { method: "GET", path: "/requests" }
            if (roll < 0.9)
              return { method: "GET", path: `/requests/${seedId("request", 1 + ((c * 10 + k) % HOT_REQUESTS))}` }
            return newRequestCall(c + 1_000, k, "Dammam")
          })
        )
      )
      if (wanted("mixed")) {
        await load("warm-up", mixedClients, 1_000, true)
        await settle(database)
        await profiled("mixed", () =>
          load(
            `mixed (70% list, 20% detail, 10% create), ${CLIENTS} clients, ${SECONDS} s`,
            mixedClients,
            SECONDS * 1_000,
            true
          )
        )
      }

      // POST /offers: each client offers on its own active requests without offers (never a duplicate).
      const active = Array.from(
        { length: SEED.requests - SEED.requestsWithOffers },
        (_, k) => SEED.requestsWithOffers + 1 + k
      ).filter((i) => i % 5 !== 0)
      const perClient = Math.floor(active.length / (CLIENTS + 1))
      const offerClients = sellers.map((token, c) =>
        as(
          token,
          active.slice(c * perClient, (c + 1) * perClient).map(
            (i): Call => ({
              method: "POST",
              path: "/offers",
              body: {
                request_id: seedId("request", i),
                price: 1234.5,
                availability: "Today",
                condition_notes: "Sealed"
              }
            })
          )
        )
      )
      const solo = offerClients.at(-1)!
      if (wanted("offers")) {
        await load("warm-up", [solo.slice(0, 20)], 2_000, false)
        measure(await load("POST /offers, 1 client, 3 s (no queueing)", [solo.slice(20)], 3_000, false))
        const clients = offerClients.slice(0, CLIENTS)
        await load(
          "warm-up",
          clients.map((calls) => calls.slice(0, 5)),
          2_000,
          false
        )
        await settle(database)
        const before = await databaseActivity(database.url, database.name)
        const measured = await withDatabaseCpu(database, "offer", () =>
          withStatements(database, () =>
            profiled("offers", () =>
              load(
                `POST /offers, ${CLIENTS} clients, ${SECONDS} s`,
                clients.map((calls) => calls.slice(5)),
                SECONDS * 1_000,
                false
              )
            )
          )
        )
        const after = await databaseActivity(database.url, database.name)
        const per = (key: keyof Activity) => ((after[key] - before[key]) / measured.requests).toFixed(1)
        console.log(
          `  database work per request (whole database, dispatcher included): ${per("commits")} commits, ${per("inserted")} rows inserted, ` +
            `${per("updated")} updated, ${per("fetched")} fetched`
        )
      }

      // POST /requests: each client posts new requests of its own (every call a new request).
      const requestClients = sellers.slice(0, CLIENTS).map((token, c) =>
        as(
          token,
          Array.from({ length: 20 }, (_, k) => newRequestCall(c, k, "Riyadh"))
        )
      )
      // Alone first: one client's latency shows the round trips a create costs, without queueing behind others.
      const soloCreates = [requestClients[0]!]
      if (wanted("requests")) {
        await load("warm-up", soloCreates, 500, true)
        measure(await load("POST /requests, 1 client, 3 s (no queueing)", soloCreates, 3_000, true))
        await load("warm-up", requestClients, 1_000, true)
        await settle(database)
        await withDatabaseCpu(database, "request created", () =>
          withStatements(database, () =>
            profiled("create-request", () =>
              load(`POST /requests, ${CLIENTS} clients, ${SECONDS} s`, requestClients, SECONDS * 1_000, true)
            )
          )
        )
      }

      // POST /conversations/{id}/messages: each seller writes in the conversation its first offer opened (made
      // here when the offers were not measured).
      if (wanted("messages") && !wanted("offers")) {
        await load(
          "setup",
          offerClients.slice(0, CLIENTS).map((calls) => calls.slice(0, 1)),
          2_000,
          false
        )
      }
      const messageClients: Array<Array<Call>> = []
      for (const token of wanted("messages") ? sellers.slice(0, CLIENTS) : []) {
        const mine = await call(server, "GET", "/conversations/my?per_page=1", token)
        const conversationId: string = mine.conversations[0].id
        messageClients.push(
          as(
            token,
            Array.from(
              { length: 20 },
              (_, k): Call => ({
                method: "POST",
                path: `/conversations/${conversationId}/messages`,
                body: { message_text: `Still available? (${k})` }
              })
            )
          )
        )
      }
      if (wanted("messages")) {
        await load("warm-up", messageClients, 1_000, true)
        await settle(database)
        await withDatabaseCpu(database, "message", () =>
          withStatements(database, () =>
            profiled("send-message", () =>
              load(
                `POST /conversations/{id}/messages, ${CLIENTS} clients, ${SECONDS} s`,
                messageClients,
                SECONDS * 1_000,
                true
              )
            )
          )
        )
      }

      const count = await onDatabase(
        database.url,
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM offers`)
      )
      console.log(`\noffers in the database after the run: ${count[0]?.n}`)
      printRatios(floor)
      printTargets(floor)
    }
  )

runScenario(main)
