/*
 * What the scenarios that drive a seeded marketplace share: a server on a fresh database, sign-in and approved
 * sellers over the REST API, SQL against the bench database, a worker thread for the load, latency lines.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { Effect, Redacted } from "effect"
import { type Call, percentile } from "./load.js"
import { createBenchDatabase } from "./seed.js"

const HIGH = 100_000_000
/** Rate limits out of the way: the scenarios measure the marketplace, not the limiter. */
export const unlimitedRateLimits = {
  authPerMinute: HIGH,
  otpPer10Minutes: HIGH,
  apiPerMinute: HIGH,
  wsMessagesPerMinute: HIGH,
  wsHandshakesPerMinute: HIGH
}

export type BenchDatabase = Awaited<ReturnType<typeof createBenchDatabase>>

/** Runs `body` on a new PostgreSQL database named after `prefix`, dropped afterwards whatever happens. */
export const withBenchDatabase = async <A>(prefix: string, body: (database: BenchDatabase) => Promise<A>) => {
  const database = await createBenchDatabase(prefix)
  try {
    return await body(database)
  } finally {
    await database.drop()
  }
}

/** Runs `body` against a test server on a new database (see withBenchDatabase), closed afterwards. */
export const withBenchServer = <A>(
  prefix: string,
  settings: NonNullable<TestServerOptions["settings"]>,
  body: (server: TestServer, database: BenchDatabase) => Promise<A>
) =>
  withBenchDatabase(prefix, async (database) => {
    // Logs at error, as production is measured: the request line of every answered call is not written.
    const server = await startTestServer({ databaseUrl: database.url, settings: { logLevel: "error", ...settings } })
    try {
      return await body(server, database)
    } finally {
      await server.close()
    }
  })

/** Runs `effect` with one connection to the database at `url`; a failure is a defect. */
export const onDatabase = <A, E>(url: string, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(
    effect.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.orDie)
  )

/** One REST call during setup: throws unless the status is 2xx, returns the envelope's `data`. */
export const call = async (server: TestServer, method: string, path: string, token?: string, body?: unknown) => {
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

/** One GET as the user of `token`, timed: its milliseconds and its `data`; anything but 200 throws. */
export const timedGet = async (server: TestServer, token: string, path: string) => {
  const started = performance.now()
  const response = await fetch(`${server.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
  const body: any = await response.json()
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(body)}`)
  return { ms: performance.now() - started, data: body.data }
}

/** Signs `phone` in with the code the testkit's SMS recorder caught. */
export const signIn = async (server: TestServer, phone: string) => {
  await call(server, "POST", "/auth/request-otp", undefined, { phone_number: phone })
  const data = await call(server, "POST", "/auth/verify-otp", undefined, {
    phone_number: phone,
    otp_code: server.sms.lastCode(phone)
  })
  return { token: data.tokens.access_token as string, userId: data.user.id as string }
}

/** Signs `phone` in, creates its seller profile and has the admin (`adminToken`) approve it. */
export const approvedSeller = async (server: TestServer, adminToken: string, phone: string, businessName: string) => {
  const seller = await signIn(server, phone)
  const profile = await call(server, "POST", "/seller-profiles", seller.token, {
    business_name: businessName,
    location_district: "Olaya"
  })
  await call(server, "PUT", `/admin/seller-profiles/${profile.id}/approve`, adminToken)
  return seller
}

/** `calls` made as the user of `token`. */
export const as = (token: string, calls: ReadonlyArray<Call>): Array<Call> =>
  calls.map((c) => ({ ...c, headers: { authorization: `Bearer ${token}` } }))

/** POST /requests of a new phone request, the `k`-th of client `c`, in `city` (every call a new request). */
export const newRequestCall = (c: number, k: number, city: string, token?: string): Call => ({
  method: "POST",
  path: "/requests",
  ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  body: {
    category: "phone",
    product_brand: "Apple",
    product_model: `iPhone ${c}-${k}`,
    budget_min: 1000,
    budget_max: 2000,
    location_district: "Olaya",
    location_city: city
  }
})

/** Runs plain-JavaScript `source` in a worker thread with `workerData`; resolves with its one message. */
export const runWorker = <A>(source: string, workerData: unknown) =>
  new Promise<A>((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData })
    worker.once("message", (result: A) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once("error", reject)
  })

export interface Percentiles {
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
}

/** The percentiles of unsorted values (NaN when there are none). */
export const percentiles = (values: ReadonlyArray<number>): Percentiles => {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN
  }
}

/** The middle of unsorted values (the upper one of the two middles when there is an even number of them). */
export const median = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** CPU and wall time of one request or statement, in microseconds, as one round measured them. */
export interface CpuRound {
  readonly cpuMicros: number
  readonly wallMicros: number
}

/**
 * One line per measure: the median CPU µs, each round's, the median wall µs, and the CPU as a multiple of the
 * first measure's (the baseline, named `baseline` in the heading).
 */
export const printCpuTable = (
  heading: string,
  baseline: string,
  measures: ReadonlyArray<readonly [string, ReadonlyArray<CpuRound>]>
) => {
  const cpuOf = (rounds: ReadonlyArray<CpuRound>) => median(rounds.map((r) => r.cpuMicros))
  const base = cpuOf(measures[0]![1])
  const width = Math.max(...measures.map(([name]) => name.length))
  console.log(`\n${heading}:`)
  console.log(
    `  ${"".padEnd(width)} ${"CPU µs".padStart(8)} ${"rounds".padStart(16)} ${"wall µs".padStart(8)}  × ${baseline}`
  )
  for (const [name, rounds] of measures) {
    const each = rounds.map((r) => r.cpuMicros.toFixed(0)).join("/")
    const wall = median(rounds.map((r) => r.wallMicros))
    console.log(
      `  ${name.padEnd(width)} ${cpuOf(rounds).toFixed(0).padStart(8)} ${each.padStart(16)} ${wall.toFixed(0).padStart(8)}  ${(cpuOf(rounds) / base).toFixed(2)}`
    )
  }
}

/** `p50 … p95 … p99 … max …` in milliseconds, shown with `digits` decimals. */
export const formatPercentiles = ({ p50, p95, p99, max }: Percentiles, digits = 1) => {
  const ms = (n: number) => `${n.toFixed(digits)} ms`
  return `p50 ${ms(p50)}  p95 ${ms(p95)}  p99 ${ms(p99)}  max ${ms(max)}`
}

/**
 * Runs `run` under a CPU profile of this process's main thread when BENCH_PROFILE names a directory, written
 * there as `<name>.cpuprofile` (open it in Chrome's DevTools or speedscope); else just runs it.
 */
export const withProfile = async <A>(name: string, run: () => Promise<A>): Promise<A> => {
  const directory = process.env.BENCH_PROFILE
  if (directory === undefined) return run()
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  try {
    return await run()
  } finally {
    const { profile } = await session.post("Profiler.stop")
    mkdirSync(directory, { recursive: true })
    writeFileSync(join(directory, `${name.replace(/[^A-Za-z0-9]+/g, "-")}.cpuprofile`), JSON.stringify(profile))
    session.disconnect()
  }
}

/** Runs a scenario's `main`, reporting a failure on stderr and in the exit code. */
export const runScenario = (main: () => Promise<void>) =>
  main().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
