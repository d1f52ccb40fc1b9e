/*
 * Creates of one key: POST /requests under BENCH_CLIENTS (50) clients, all in one category and city (the busiest
 * key of a real market), against the same load spread over one city per client. The two alternate, three rounds
 * each, in one run; the figure to compare between runs is the ratio of their medians. Before migration 0019 a
 * create of a key waited for the previous create of that key to commit (one counts row per key) and the ratio
 * was well under 1; with the counts striped it should be about 1.
 *
 *   pnpm bench hot-key                       (or: npx tsx apps/server/bench/scenarios/hot-key.ts)
 *   BENCH_SECONDS=8 BENCH_CLIENTS=50 …       to change the load
 *
 * A real server (testkit's startTestServer, rate limits out of the way) on a fresh database dropped at the end.
 */
import { Redacted } from "effect"
import { benchSettings, type LoadReport, runLoad } from "../load.js"
import {
  formatPercentiles,
  median,
  newRequestCall,
  runScenario,
  signIn,
  unlimitedRateLimits,
  withBenchServer
} from "../setup.js"

const { seconds, clients } = benchSettings()
const ROUNDS = 3

/** Saudi mobile numbers of this scenario's buyers. */
const phone = (n: number) => `+9665${String(82_000_000 + n).padStart(8, "0")}`

const main = () =>
  withBenchServer(
    "talab_hot_key",
    { rateLimits: unlimitedRateLimits, jwtSecret: Redacted.make("hot-key-bench-secret-0123456789-abcdef") },
    async (server) => {
      const tokens: Array<string> = []
      for (let c = 0; c < clients; c++) tokens.push((await signIn(server, phone(c))).token)
      /** Each client's creates, in the city `cityOf` gives it; every call a new request. */
      const creates = (cityOf: (client: number) => string) =>
        tokens.map((token, c) => Array.from({ length: 20 }, (_, k) => newRequestCall(c, k, cityOf(c), token)))
      const loads = [
        ["one key (phone, Riyadh)", creates(() => "Riyadh")],
        [`${clients} keys (a city per client)`, creates((c) => `City ${c}`)]
      ] as const
      const results = new Map<string, Array<LoadReport>>(loads.map(([name]) => [name, []]))
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [name, calls] of loads) {
          await runLoad("warm-up", { baseUrl: server.apiUrl, clients: calls, durationMs: 1_000, cycle: true })
          const result = await runLoad(name, {
            baseUrl: server.apiUrl,
            clients: calls,
            durationMs: seconds * 1_000,
            cycle: true
          })
          if (result.errors > 0) throw new Error(`${name}: ${result.errors} errors, first ${result.firstError}`)
          results.get(name)!.push(result)
          console.log(
            `round ${round}  POST /requests, ${name.padEnd(28)} ${result.perSecond.toFixed(0).padStart(5)} req/s  ${formatPercentiles(result)}`
          )
        }
      }
      const [hot, spread] = loads.map(([name]) => median(results.get(name)!.map((r) => r.perSecond)))
      console.log(
        `\nmedians of ${ROUNDS}: one key ${hot!.toFixed(0)} req/s, ${clients} keys ${spread!.toFixed(0)} req/s, ` +
          `ratio ${(hot! / spread!).toFixed(2)} (about 1 when creates of one key do not wait for each other)`
      )
    }
  )

runScenario(main)
