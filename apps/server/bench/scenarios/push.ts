/*
 * Push latency on PostgreSQL: from the commit of the change that owes a push (POST /offers) to the call of the
 * push provider, p50/p95/p99, first with one client (no queueing) and then under concurrent load. The commit
 * lies between two measured instants, so both bounds are printed: the notification's `created_at` (the time
 * the offer service took just before its transaction) and the arrival of the 201 (sent after the commit; a
 * push can even beat it, giving a negative figure).
 *
 *   npx tsx apps/server/bench/scenarios/push.ts      (from the repository root)
 *   BENCH_SECONDS=10 BENCH_CLIENTS=20 …              to change the load
 *
 * A real server (testkit's startTestServer, background push dispatcher included) on a fresh database. Each
 * buyer has one device; the testkit's push recorder stamps each provider call. The load runs in a worker
 * thread so it does not share the server's event loop.
 */

import { SqlClient } from "@effect/sql"
import type { TestServer } from "@talab/testkit"
import { Effect } from "effect"
import {
  approvedSeller,
  call,
  formatPercentiles,
  onDatabase,
  percentiles,
  runScenario,
  runWorker,
  signIn,
  unlimitedRateLimits,
  withBenchServer
} from "../setup.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20)
/** The target's rate: the paced phase starts one offer every 1/RATE s, whatever the answers' pace. */
const RATE = Number(process.env.BENCH_RATE ?? 200)
/**
 * Requests (one per buyer): 100 for the single client, then for each loaded phase enough that no seller runs
 * out (a seller offers once per request) at up to twice the target's rate.
 */
const PER_CLIENT = Math.ceil((RATE * SECONDS * 2) / CLIENTS)
const BUYERS = 101 + 2 * PER_CLIENT

/*
 * Each client posts its offers one after the other until the time is up. Unpaced (rate 0), each posts as soon
 * as its previous answer came; paced, each takes the next start instant of a shared schedule (one every
 * 1/rate s) and waits for it, so the offers start at the rate however fast they are answered. Plain JS: it
 * runs in a worker.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { apiUrl, durationMs, clients, ratePerSecond } = workerData
const statuses = {}
const responded = []
const started = performance.now()
const deadline = started + durationMs
let nextSlot = 0
const waitForSlot = () => {
  if (!ratePerSecond) return Promise.resolve()
  const at = started + (nextSlot++ * 1000) / ratePerSecond
  const wait = at - performance.now()
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve()
}
const loop = async ({ token, requestIds }) => {
  for (const requestId of requestIds) {
    await waitForSlot()
    if (performance.now() >= deadline) break
    const response = await fetch(apiUrl + "/offers", {
      method: "POST",
      headers: { authorization: "Bearer " + token, "content-type": "application/json" },
      body: JSON.stringify({ request_id: requestId, price: 1234.5, availability: "Today" })
    })
    const text = await response.text()
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
    if (response.status === 201) responded.push([JSON.parse(text).data.id, Date.now()])
  }
}
Promise.all(clients.map(loop)).then(() => parentPort.postMessage({ statuses, responded, elapsedMs: performance.now() - started }))
`

interface LoadResult {
  readonly statuses: Record<string, number>
  /** [offer id, wall-clock ms when its 201 arrived] */
  readonly responded: ReadonlyArray<readonly [string, number]>
  readonly elapsedMs: number
}

const runLoad = (
  server: TestServer,
  clients: ReadonlyArray<{ token: string; requestIds: ReadonlyArray<string> }>,
  durationMs: number,
  ratePerSecond: number
) => runWorker<LoadResult>(workerSource, { apiUrl: server.apiUrl, durationMs, clients, ratePerSecond })

const phone = (n: number) => `+9665${String(82_000_000 + n).padStart(8, "0")}`

/** When each offer_created notification was queued, by offer id. */
const queuedAt = (databaseUrl: string) =>
  onDatabase(
    databaseUrl,
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ offerId: string; createdAt: Date; status: string }>`
        SELECT payload -> 'data' ->> 'offer_id' AS "offerId", created_at AS "createdAt", status
        FROM notifications WHERE type = 'offer_created'`
    )
  )

const waitUntil = async (done: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("pushes still pending after the load")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const measure = async (
  name: string,
  server: TestServer,
  databaseUrl: string,
  clients: ReadonlyArray<{ token: string; requestIds: ReadonlyArray<string> }>,
  durationMs: number,
  ratePerSecond = 0
) => {
  const before = server.pushes.delivered.length
  const load = await runLoad(server, clients, durationMs, ratePerSecond)
  const posted = load.statuses["201"] ?? 0
  await waitUntil(async () => server.pushes.delivered.length - before >= posted, 30_000)
  const queued = new Map((await queuedAt(databaseUrl)).map((row) => [row.offerId, row.createdAt.getTime()]))
  const respondedAt = new Map(load.responded)
  const pushes = server.pushes.delivered.slice(before)
  const sinceQueued = pushes.map((push) => push.sentAt.getTime() - queued.get(push.data.offer_id ?? "")!)
  const sinceResponse = pushes.map((push) => push.sentAt.getTime() - respondedAt.get(push.data.offer_id ?? "")!)
  const line = (label: string, values: Array<number>) =>
    console.log(`  ${label}: ${formatPercentiles(percentiles(values), 0)}`)
  console.log(`\n${name}`)
  console.log(
    `  offers ${posted} in ${(load.elapsedMs / 1000).toFixed(1)} s = ${(posted / (load.elapsedMs / 1000)).toFixed(0)}/s, statuses ${JSON.stringify(load.statuses)}`
  )
  console.log(`  pushes delivered ${pushes.length}`)
  line("queued (before commit) → provider call", sinceQueued)
  line("201 received (after commit) → provider call", sinceResponse)
  return { perSecond: posted / (load.elapsedMs / 1000), sinceQueued, sinceResponse }
}

/**
 * The target: commit → provider call p95 under 200 ms at 200 offers/s. The commit lies between the two
 * instants measured, so the verdict takes the bound before it (the larger figure).
 */
const judge = ({ perSecond, sinceQueued }: Awaited<ReturnType<typeof measure>>) => {
  const p95 = percentiles(sinceQueued).p95
  // The schedule's last instants fall just before the deadline: 2% short of the rate is the rate.
  const atRate = perSecond >= 200 * 0.98
  const verdict = p95 < 200 && atRate ? "met" : p95 < 200 ? `met below the rate (${perSecond.toFixed(0)}/s)` : "MISSED"
  console.log(
    `  target: commit → provider call p95 under 200 ms at 200 offers/s; measured p95 ≤ ${p95.toFixed(0)} ms at ${perSecond.toFixed(0)} offers/s (${verdict})`
  )
}

const adminPhone = phone(0)

const main = () =>
  withBenchServer(
    "talab_push_bench",
    { rateLimits: unlimitedRateLimits, adminPhoneNumbers: [adminPhone] },
    async (server, database) => {
      const admin = await signIn(server, adminPhone)
      const sellers: Array<string> = []
      for (let c = 1; c <= CLIENTS; c++) {
        sellers.push((await approvedSeller(server, admin.token, phone(c), `Bench Shop ${c}`)).token)
      }
      const requestIds: Array<string> = []
      for (let b = 1; b <= BUYERS; b++) {
        const { token } = await signIn(server, phone(1_000 + b))
        await call(server, "POST", "/device-tokens", token, {
          platform: b % 2 === 0 ? "ios" : "android",
          push_token: `bench-device-${b}`
        })
        const request = await call(server, "POST", "/requests", token, {
          category: "phone",
          product_brand: "Apple",
          product_model: "iPhone 15",
          budget_min: 1000,
          budget_max: 2000,
          location_district: "Olaya"
        })
        requestIds.push(request.id)
      }
      console.log(`${CLIENTS} approved sellers, ${BUYERS} buyers with one device and one request each`)

      // A seller offers at most once per request: each client walks the requests from its own starting point.
      const plan = (from: number, count: number) =>
        sellers.map((token, c) => ({
          token,
          requestIds: Array.from({ length: count }, (_, k) => requestIds[(from + c + k) % requestIds.length]!)
        }))
      const single = [{ token: sellers[0]!, requestIds: requestIds.slice(0, 100) }]
      await measure("1 client, sequential POST /offers (no queueing)", server, database.url, single, 3_000)
      // The two loaded phases start at different points of the requests, so no seller offers twice on one.
      const perClient = PER_CLIENT
      judge(
        await measure(
          `${CLIENTS} clients, POST /offers paced at ${RATE}/s for ${SECONDS} s (the target's load)`,
          server,
          database.url,
          plan(100, perClient),
          SECONDS * 1_000,
          RATE
        )
      )
      await measure(
        `${CLIENTS} clients, POST /offers as fast as answered for ${SECONDS} s (the ceiling; not the target's load)`,
        server,
        database.url,
        plan(100 + perClient, perClient),
        SECONDS * 1_000
      )
    }
  )

runScenario(main)
