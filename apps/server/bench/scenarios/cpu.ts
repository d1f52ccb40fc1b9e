/*
 * What one request costs the server's thread, without queueing: one client at a time (in a worker thread, so its
 * own work is not counted), and the CPU time of the server's thread (JavaScript, garbage collection and its
 * system calls; Linux's /proc/self/task/<pid>/stat, in 10 ms ticks, so seconds of load keep the error under 1%)
 * divided by the requests answered. It includes the background work the requests cause on that thread (the push
 * dispatcher after a message, the alert matcher after a create): that is what they cost the server. Beside it,
 * the same for the floor (bench/floor.ts: bare node:http + pg answering GET /requests/{id}), so each figure is
 * also a multiple of the floor's cost, and for the stack's floor (bench/stack-floor.ts: the same answer from a
 * bare HttpApi endpoint on @effect/sql-pg), which says how much of that multiple the stack itself takes. Three
 * rounds, alternating; medians printed. Busy time per request moves far less between runs than requests per
 * second under load do, so this is the figure to follow a change by.
 *
 *   pnpm bench cpu                          (or: npx tsx apps/server/bench/scenarios/cpu.ts)
 *   BENCH_SECONDS=3 …                       seconds per measure (default 3)
 *   BENCH_PROFILE=<dir> …                   a CPU profile of the server's thread during each last round
 *
 * A real server (testkit's startTestServer, rate limits out of the way) on a fresh database dropped at the end.
 */
import { readFileSync } from "node:fs"
import { Redacted } from "effect"
import { startFloorServer } from "../floor.js"
import { type Call, runLoad } from "../load.js"
import {
  approvedSeller,
  as,
  type CpuRound,
  call,
  newRequestCall,
  printCpuTable,
  runScenario,
  signIn,
  unlimitedRateLimits,
  withBenchServer,
  withProfile
} from "../setup.js"
import { startStackFloorServer } from "../stack-floor.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = 3
const JWT_SECRET = "cpu-bench-secret-cpu-bench-secret-0123456789"
const adminPhone = "+966583000000"

/** CPU microseconds the main thread (the servers'; the load runs in a worker) has used: user + system time. */
const mainThreadCpuMicros = () => {
  // Fields 14 and 15 after the parenthesised command name, which may itself hold spaces.
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** The main thread's CPU microseconds per request over one client's `calls`, cycled for `seconds`. */
const busyPerRequest = async (baseUrl: string, calls: ReadonlyArray<Call>, seconds: number) => {
  const before = mainThreadCpuMicros()
  const report = await runLoad("cpu", { baseUrl, clients: [calls], durationMs: seconds * 1_000, cycle: true })
  const busy = mainThreadCpuMicros() - before
  if (report.errors > 0 || report.requests === 0) {
    throw new Error(`${calls[0]?.method} ${calls[0]?.path}: ${JSON.stringify(report.statuses)} ${report.firstError}`)
  }
  return {
    cpuMicros: busy / report.requests,
    wallMicros: (report.elapsedMs * 1_000) / report.requests
  }
}

const main = () =>
  withBenchServer(
    "talab_cpu",
    { rateLimits: unlimitedRateLimits, adminPhoneNumbers: [adminPhone], jwtSecret: Redacted.make(JWT_SECRET) },
    async (server, database) => {
      const admin = await signIn(server, adminPhone)
      const buyer = await signIn(server, "+966583000001")
      const seller = await approvedSeller(server, admin.token, "+966583000002", "CPU Bench Shop")
      const request = await call(server, "POST", "/requests", buyer.token, newRequestCall(0, 0, "Riyadh").body)
      // A full first page for the list.
      for (let k = 1; k <= 25; k++)
        await call(server, "POST", "/requests", buyer.token, newRequestCall(0, k, "Riyadh").body)
      await call(server, "POST", "/offers", seller.token, {
        request_id: request.id,
        price: 1500,
        availability: "Today"
      })
      const conversationId: string = (await call(server, "GET", "/conversations/my?per_page=1", seller.token))
        .conversations[0].id
      const detail = as(buyer.token, [{ method: "GET", path: `/requests/${request.id}` }])
      const scenarios: ReadonlyArray<readonly [string, ReadonlyArray<Call>]> = [
        ["GET /requests/{id}", detail],
        ["GET /users/me", as(buyer.token, [{ method: "GET", path: "/users/me" }])],
        ["GET /requests (a page of 20)", as(seller.token, [{ method: "GET", path: "/requests" }])],
        [
          "POST /requests",
          as(
            buyer.token,
            Array.from({ length: 50 }, (_, k) => newRequestCall(1, k, "Jeddah"))
          )
        ],
        [
          "POST /conversations/{id}/messages",
          as(seller.token, [
            {
              method: "POST",
              path: `/conversations/${conversationId}/messages`,
              body: { message_text: "Still available" }
            }
          ])
        ]
      ]

      const floor = await startFloorServer(database.url, JWT_SECRET)
      const stackFloor = await startStackFloorServer(database.url, JWT_SECRET).catch(async (error) => {
        await floor.close()
        throw error
      })
      // Every measure but the floor's, each profiled in its last round: the stack floor's, then Talab's.
      const measured: ReadonlyArray<readonly [string, string, ReadonlyArray<Call>]> = [
        ["stack floor: GET /requests/{id}", stackFloor.apiUrl, detail],
        ...scenarios.map(([name, calls]) => [name, server.apiUrl, calls] as const)
      ]
      const results = new Map<string, Array<CpuRound>>()
      const record = (name: string, result: CpuRound) => results.set(name, [...(results.get(name) ?? []), result])
      try {
        await busyPerRequest(floor.apiUrl, detail, 1)
        for (const [, baseUrl, calls] of measured) await busyPerRequest(baseUrl, calls, 1)
        for (let round = 1; round <= ROUNDS; round++) {
          record("floor: GET /requests/{id}", await busyPerRequest(floor.apiUrl, detail, SECONDS))
          for (const [name, baseUrl, calls] of measured) {
            const measure = () => busyPerRequest(baseUrl, calls, SECONDS)
            record(name, await (round === ROUNDS ? withProfile(`cpu ${name}`, measure) : measure()))
          }
        }
      } finally {
        await floor.close()
        await stackFloor.close()
      }

      printCpuTable(`server thread CPU per request, one client, median of ${ROUNDS} rounds of ${SECONDS} s`, "floor", [
        ...results
      ])
    }
  )

runScenario(main)
