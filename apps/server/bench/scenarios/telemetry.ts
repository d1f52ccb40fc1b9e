/*
 * What telemetry costs a request: GET /users/me (token check, session and user in one query) and GET
 * /health/live under BENCH_CLIENTS clients for BENCH_SECONDS each, on a server with telemetry off and on one
 * recording metrics (METRICS_PORT), alternating the two servers twice so drift on a shared machine shows.
 * The OTLP exporter itself is not included: it lives in apps/server/src/main.ts, not in the testkit server.
 *
 *   pnpm bench telemetry
 *   BENCH_TELEMETRY_MODES=off …     only the server without telemetry (to compare two builds)
 */
import { createServer } from "node:http"
import { benchSettings, type Call, type LoadReport, runLoad } from "../load.js"
import { formatPercentiles, runScenario, signIn, unlimitedRateLimits, withBenchServer } from "../setup.js"

const { seconds, clients } = benchSettings()
const modes = (process.env.BENCH_TELEMETRY_MODES ?? "off,metrics").split(",").map((m) => m.trim())

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const line = (mode: string, result: LoadReport) =>
  console.log(
    `${mode.padEnd(8)} ${result.name.padEnd(16)} ${result.perSecond.toFixed(0).padStart(6)} req/s  ${formatPercentiles(result)}  errors ${result.errors}`
  )

const measure = async (mode: string, round: number) => {
  const telemetry =
    mode === "metrics" ? { otlpEndpoint: undefined, serviceName: "talab", metricsPort: await freePort() } : undefined
  await withBenchServer(
    `bench_telemetry_${mode}_${round}`,
    { rateLimits: unlimitedRateLimits, ...(telemetry ? { telemetry } : {}) } as never,
    async (server) => {
      const { token } = await signIn(server, `+96658${String(1_000_000 + round).padStart(7, "0")}`)
      const me: Call = { method: "GET", path: "/users/me", headers: { authorization: `Bearer ${token}` } }
      const warm = Array.from({ length: clients }, () => [me])
      await runLoad("warm-up", { baseUrl: server.apiUrl, clients: warm, durationMs: 1000, cycle: true })
      line(
        mode,
        await runLoad("GET /users/me", {
          baseUrl: server.apiUrl,
          clients: Array.from({ length: clients }, () => [me]),
          durationMs: seconds * 1000,
          cycle: true
        })
      )
      line(
        mode,
        await runLoad("GET /health/live", {
          baseUrl: server.baseUrl,
          clients: Array.from({ length: clients }, () => [{ method: "GET", path: "/health/live" } as Call]),
          durationMs: seconds * 1000,
          cycle: true
        })
      )
    }
  )
}

runScenario(async () => {
  console.log(`telemetry: ${clients} clients, ${seconds} s per load, modes ${modes.join(", ")}`)
  for (const round of [1, 2]) for (const mode of modes) await measure(mode, round)
})
