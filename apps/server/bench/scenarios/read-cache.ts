/*
 * What the read cache's own bookkeeping costs as it fills and is read for a long time: a cache at its byte
 * budget (64 MB of detail answers and list pages, as after the cold reads of `pnpm bench marketplace`) read in
 * the mixed pattern (70 % page 1 of the list, 20 % one of 500 hot requests, 10 % a create dropping every list),
 * one window of operations after another. Each window's CPU time per operation is printed; the verdict is "ok" when
 * the last window costs at most twice the first (the cost of a read does not grow with the reads before it)
 * and every window stays under 5 µs an operation. Pure CPU, no server.
 *
 *   pnpm bench read-cache                  (or: npx tsx apps/server/bench/scenarios/read-cache.ts)
 */
import { makeReadCache, REQUEST_LISTS, requestTag, userTag } from "@talab/http-server"
import { runScenario } from "../setup.js"

const WINDOWS = 8
const OPERATIONS_PER_WINDOW = 100_000
const HOT_REQUESTS = 500
const BUDGET_US = 5

const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const detailKey = (n: number) => `/api/v1/requests/${idOf(n)}`
const LIST_KEY = "/api/v1/requests"
const viewer = { language: "ar", userId: undefined }
const answer = { body: new Uint8Array(1_500), contentType: "application/json" }

const main = async () => {
  const cache = makeReadCache({ enabled: true, maxBytes: 64 * 1024 * 1024, ttlMs: 3_600_000 })
  const now = Date.now()
  const keep = (routeKey: string, tags: ReadonlyArray<string>) =>
    cache.store(routeKey, viewer, answer, { tags }, { generation: cache.generation(), now })
  const read = (routeKey: string, tags: ReadonlyArray<string>) => {
    if (cache.has(routeKey, now) && cache.lookup(routeKey, viewer, now) !== undefined) return
    keep(routeKey, tags)
  }
  // Filled as the cold reads fill it, more detail answers than the budget holds, with a page of the list in
  // every tenth place (other filters, other pages), all of which the first create drops.
  for (let n = 0; n < 100_000; n++) {
    if (n % 10 === 0) read(`${LIST_KEY}?page=${n}`, [REQUEST_LISTS])
    else read(detailKey(n), [requestTag(idOf(n)), userTag(idOf(n % 977))])
  }
  const filled = cache.size()
  console.log(`read cache filled: ${filled.routes} routes, ${(filled.bytes / 1024 / 1024).toFixed(1)} MB`)

  const perOperationUs: Array<number> = []
  let operation = 0
  for (let window = 0; window < WINDOWS; window++) {
    const cpu = process.cpuUsage()
    for (let i = 0; i < OPERATIONS_PER_WINDOW; i++, operation++) {
      const roll = (operation * 7_919) % 100
      if (roll < 70) read(LIST_KEY, [REQUEST_LISTS])
      else if (roll < 90) {
        const n = operation % HOT_REQUESTS
        read(detailKey(n), [requestTag(idOf(n)), userTag(idOf(n % 977))])
      } else cache.drop([REQUEST_LISTS])
    }
    const used = process.cpuUsage(cpu)
    perOperationUs.push((used.user + used.system) / OPERATIONS_PER_WINDOW)
  }
  console.log(`mixed reads, ${OPERATIONS_PER_WINDOW} operations a window:`)
  for (const [window, us] of perOperationUs.entries()) {
    console.log(`  window ${window + 1}  ${us.toFixed(2).padStart(8)} µs`)
  }
  const growth = perOperationUs.at(-1)! / perOperationUs[0]!
  const worst = Math.max(...perOperationUs)
  const ok = growth <= 2 && worst <= BUDGET_US
  console.log(
    `verdict: ${ok ? "ok" : "too slow"}: last window ${growth.toFixed(2)}× the first (at most 2), ` +
      `worst ${worst.toFixed(2)} µs an operation (at most ${BUDGET_US})`
  )
  if (!ok) process.exitCode = 1
}

void runScenario(main)
