/*
 * Malformed input must not hold anyone else up: ten clients send bad 1 MiB bodies back to back (a megabyte
 * of `[`, unparsable JSON, a broken multipart body, octet-stream) to POST /auth/request-otp and PUT /users/me,
 * while one client measures GET /health/live, one call after the other. Prints p50/p99 of both; the target is
 * /health/live p99 < 50 ms. Exits non-zero when a bad body gets anything but 400/413/415.
 *
 *   pnpm bench bad-bodies                    (or: npx tsx apps/server/bench/scenarios/bad-bodies.ts)
 *   BENCH_SECONDS=10 …                       to change the duration
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks"
import { benchSettings, type Call, formatReports, runLoad } from "../load.js"
import { runScenario, signIn, unlimitedRateLimits, withBenchServer } from "../setup.js"

const { seconds } = benchSettings()
const MiB = 1024 * 1024
const ATTACKERS = Number(process.env.BENCH_BAD_CLIENTS ?? 10)

const badBodies = (token: string): ReadonlyArray<Call> => {
  const json = { "content-type": "application/json" }
  const auth = { authorization: `Bearer ${token}` }
  const brackets = "[".repeat(MiB)
  const unparsable = `{"name": "${"x".repeat(MiB - 20)}`
  const multipart = `--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n${"y".repeat(MiB - 100)}`
  return [
    { method: "POST", path: "/auth/request-otp", headers: json, rawBody: brackets },
    { method: "PUT", path: "/users/me", headers: { ...json, ...auth }, rawBody: brackets },
    { method: "POST", path: "/auth/request-otp", headers: json, rawBody: unparsable },
    {
      method: "PUT",
      path: "/users/me",
      headers: { "content-type": "multipart/form-data; boundary=b", ...auth },
      rawBody: multipart
    },
    {
      method: "POST",
      path: "/auth/request-otp",
      headers: { "content-type": "application/octet-stream" },
      rawBody: brackets
    }
  ]
}

const main = () =>
  withBenchServer("talab_bad_bodies_bench", { rateLimits: unlimitedRateLimits }, async (server) => {
    const { token } = await signIn(server, "+966500000001")
    console.log(`bad-bodies bench: ${ATTACKERS} clients sending bad 1 MiB bodies, ${seconds} s`)
    const calls = badBodies(token)
    // The server shares this process's event loop (the clients run in worker threads): its delays are the server's.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 })
    loopDelay.enable()
    const busyBefore = performance.eventLoopUtilization()
    const [attack, live] = await Promise.all([
      runLoad("bad 1 MiB bodies", {
        baseUrl: server.apiUrl,
        clients: Array.from({ length: ATTACKERS }, (_, c) => [...calls.slice(c % calls.length), ...calls]),
        durationMs: seconds * 1000,
        cycle: true,
        expectStatuses: [400, 413, 415]
      }),
      runLoad("GET /health/live meanwhile", {
        baseUrl: server.baseUrl,
        clients: [[{ method: "GET", path: "/health/live" }]],
        durationMs: seconds * 1000,
        cycle: true
      })
    ])
    console.log(formatReports([attack, live]))
    loopDelay.disable()
    // Less noisy than latency on a shared machine: the server thread's busy time per bad body.
    const busy = performance.eventLoopUtilization(busyBefore)
    const busyMsPerBody = busy.active / Math.max(1, attack.requests)
    const ms = (ns: number) => (ns / 1e6).toFixed(1)
    console.log(
      `server event loop delay: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms`
    )
    console.log(
      `server thread busy ${(busy.utilization * 100).toFixed(0)}%, ${busyMsPerBody.toFixed(2)} ms per bad body`
    )
    console.log(`/health/live p50 ${live.p50.toFixed(1)} ms, p99 ${live.p99.toFixed(1)} ms (target p99 < 50 ms)`)
    if (attack.errors > 0 || live.errors > 0) process.exitCode = 1
  })

runScenario(main)
