/*
 * Avatar decoding against everyone else: 16 uploads of a 39-megapixel PNG at once while a prober calls
 * GET /health/live every 10 ms; prints the prober's latency during the burst (and without it, as a baseline),
 * the burst's duration and statuses, three rounds, and the median of the rounds' p99.
 *
 *   pnpm bench avatars        (or: npx tsx apps/server/bench/scenarios/avatars.ts from the repository root)
 *   BENCH_UPLOADS=16 BENCH_ROUNDS=3 …  to change the burst
 *   BENCH_DECODE_CONCURRENCY=n …        decodings at once instead of the server's default (one per core)
 *
 * A real server (testkit's startTestServer, default decoding gate: one decoding per core, 16 waiting) on a
 * fresh database. Uploads and prober run in a worker thread so they do not share the server's event loop.
 */

import { monitorEventLoopDelay } from "node:perf_hooks"
import { largePng } from "../../test/support/images.js"
import {
  formatPercentiles,
  median,
  percentiles,
  runScenario,
  runWorker,
  signIn,
  unlimitedRateLimits,
  withBenchServer
} from "../setup.js"

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 16)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PROBE_INTERVAL_MS = 10

/** Probes /health/live until the uploads (if any) are done; plain JS, it runs in a worker. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { apiUrl, liveUrl, tokens, png, baselineMs } = workerData
const probes = []
let probing = true
const probe = async () => {
  while (probing) {
    const started = performance.now()
    await (await fetch(liveUrl)).text()
    probes.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, ${PROBE_INTERVAL_MS}))
  }
}
const upload = async (token) => {
  const form = new FormData()
  form.append("avatar", new Blob([png], { type: "image/png" }), "big.png")
  const response = await fetch(apiUrl + "/users/me/avatar", { method: "POST", headers: { authorization: "Bearer " + token }, body: form })
  await response.text()
  return response.status
}
const prober = probe()
const started = performance.now()
const burst = tokens.length > 0
  ? Promise.all(tokens.map(upload))
  : new Promise((resolve) => setTimeout(() => resolve([]), baselineMs))
burst.then(async (statuses) => {
  const elapsedMs = performance.now() - started
  probing = false
  await prober
  parentPort.postMessage({ probes, statuses, elapsedMs })
})
`

interface RoundResult {
  readonly probes: ReadonlyArray<number>
  readonly statuses: ReadonlyArray<number>
  readonly elapsedMs: number
}

const concurrency = process.env.BENCH_DECODE_CONCURRENCY
const settings = {
  rateLimits: unlimitedRateLimits,
  ...(concurrency ? { avatarDecoding: { concurrency: Number(concurrency), queue: UPLOADS } } : {})
}

const phone = (n: number) => `+9665${String(83_000_000 + n).padStart(8, "0")}`

const countStatuses = (statuses: ReadonlyArray<number>) =>
  JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])))

const main = () =>
  withBenchServer("talab_avatar_bench", settings, async (server) => {
    const png = largePng(7200, 5400)
    console.log(`PNG of 7200 x 5400 = 38.9 megapixels, ${(png.length / 1024).toFixed(0)} KiB`)
    const tokens: Array<string> = []
    for (let i = 1; i <= UPLOADS; i++) tokens.push((await signIn(server, phone(i))).token)
    /* The server shares this process: its event loop's delay tells synchronous work from CPU contention. */
    const round = async (withUploads: boolean) => {
      const loop = monitorEventLoopDelay({ resolution: 5 })
      loop.enable()
      const result = await runWorker<RoundResult>(workerSource, {
        apiUrl: server.apiUrl,
        liveUrl: `${server.baseUrl}/health/live`,
        tokens: withUploads ? tokens : [],
        png,
        baselineMs: 2_000
      })
      loop.disable()
      const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`
      return { ...result, loopDelay: `p99 ${ms(loop.percentile(99))}  max ${ms(loop.max)}` }
    }

    const baseline = await round(false)
    console.log(`\nbaseline, no uploads: GET /health/live ${formatPercentiles(percentiles(baseline.probes))}`)
    console.log(`  server event-loop delay: ${baseline.loopDelay}`)
    const p99s: Array<number> = []
    for (let r = 1; r <= ROUNDS; r++) {
      const result = await round(true)
      const live = percentiles(result.probes)
      p99s.push(live.p99)
      console.log(
        `\nround ${r}: ${UPLOADS} uploads in ${(result.elapsedMs / 1000).toFixed(2)} s, statuses ${countStatuses(result.statuses)}`
      )
      console.log(`  GET /health/live during the burst (${result.probes.length} probes): ${formatPercentiles(live)}`)
      console.log(`  server event-loop delay: ${result.loopDelay}`)
    }
    console.log(`\nmedian of the rounds' /health/live p99: ${median(p99s).toFixed(1)} ms`)
  })

runScenario(main)
