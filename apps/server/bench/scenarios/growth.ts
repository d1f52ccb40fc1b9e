/*
 * Growth of GET /requests on PostgreSQL: the latency of page 1 and page 500 of the list, unfiltered and under
 * each filter, with 10,000, then 100,000, then 1,000,000 buy requests in the table; the target is
 * that each query costs within 1.5x at every size. Each figure is the median of sequential calls by one
 * client (no queueing), so it is the cost of one request, not the machine's throughput.
 *
 *   npx tsx apps/server/bench/scenarios/growth.ts     (from the repository root)
 *   BENCH_GROWTH_SIZES=10000,100000,1000000 …          table sizes, grown in place one after the other
 *   BENCH_GROWTH_CALLS=40 …                            calls per figure (after 5 unmeasured)
 *
 * A real server (testkit's startTestServer) on a fresh database it creates and drops; the rows are written
 * with INSERT … SELECT generate_series (the count triggers off while it runs, the counts rebuilt after), then
 * VACUUM ANALYZE, as autovacuum would do in time.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import {
  onDatabase,
  percentiles,
  runScenario,
  signIn,
  timedGet,
  unlimitedRateLimits,
  withBenchServer
} from "../setup.js"

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? "10000,100000,1000000").split(",").map(Number)
const CALLS = Number(process.env.BENCH_GROWTH_CALLS ?? 40)
const WARMUP_CALLS = 5
const BUYERS = 2_000

/** [name, query string, the WHERE that RequestQueries.list builds for it] */
const QUERIES: ReadonlyArray<readonly [string, string, string]> = [
  ["active", "", "status = 'active'"],
  ["category", "category=accessory", "status = 'active' AND category = 'accessory'"],
  ["city", "location_city=Jeddah", "status = 'active' AND location_city = 'Jeddah'"],
  [
    "category + city",
    "category=accessory&location_city=Jeddah",
    "status = 'active' AND category = 'accessory' AND location_city = 'Jeddah'"
  ],
  ["closed", "status=closed", "status = 'closed'"]
]

/*
 * The buffers (8 KiB pages) the page's SQL touches, from EXPLAIN (ANALYZE, BUFFERS): unlike milliseconds on a
 * shared machine, a count load does not move. The statement is RequestQueries' page query for that WHERE.
 */
const buffersOf = (where: string, page: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe<{ "QUERY PLAN": any }>(`
      EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
      SELECT id, category, product_brand, product_model, condition_pref, budget_min, budget_max,
             location_district, status, offer_count, created_at
      FROM buy_requests
      WHERE id IN (SELECT id FROM buy_requests WHERE ${where} ORDER BY created_at DESC, id DESC
                   LIMIT 20 OFFSET ${(page - 1) * 20})
      ORDER BY created_at DESC, id DESC`)
  ).pipe(
    Effect.map((rows) => {
      const plan = rows[0]!["QUERY PLAN"][0].Plan
      return (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0)
    })
  )
const PAGES = [1, 500]

/** Grows buy_requests from `from` rows to `to` (row i is created i × 25 s before the start). */
const grow = (from: number, to: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql
      .unsafe(`
      ALTER TABLE buy_requests DISABLE TRIGGER USER;
      INSERT INTO buy_requests (id, buyer_id, category, product_brand, product_model, condition_pref, budget_min,
                                budget_max, location_district, location_city, notes, status, offer_count,
                                created_at, closed_at, expires_at)
      SELECT md5('growth' || i)::uuid, md5('growthuser' || (1 + i % ${BUYERS}))::uuid,
             CASE WHEN i % 10 < 7 THEN 'phone' ELSE 'accessory' END,
             (ARRAY['Apple','Samsung','Xiaomi','Huawei','Oppo'])[1 + i % 5], 'Model ' || (i % 50),
             (ARRAY['new','used','refurbished','any'])[1 + i % 4],
             500 + (i % 20) * 100, 1500 + (i % 20) * 100,
             (ARRAY['Olaya','Malaz','Nakheel','Sulaimaniyah','Rawdah'])[1 + i % 5],
             (ARRAY['Riyadh','Jeddah','Dammam','Mecca','Medina','Khobar','Taif','Tabuk','Abha','Hail'])[1 + (i / 7) % 10],
             NULL, CASE WHEN i % 5 = 0 THEN 'closed' ELSE 'active' END, i % 4,
             now() - make_interval(secs => i * 25),
             CASE WHEN i % 5 = 0 THEN now() - make_interval(secs => i * 25 - 10) END,
             -- As migration 0018 dated the requests it found: none expires before the measurement.
             GREATEST(now() - make_interval(secs => i * 25) + interval '30 days', now() + interval '1 day')
      FROM generate_series(${from + 1}, ${to}) i;
      ALTER TABLE buy_requests ENABLE TRIGGER USER;
      DELETE FROM buy_request_counts;
      INSERT INTO buy_request_counts (status, category, location_city_key, n)
      SELECT status, category, COALESCE(location_city, ''), count(*) FROM buy_requests GROUP BY 1, 2, 3;`)
      .pipe(
        // VACUUM runs outside the multi-statement transaction above.
        Effect.zipRight(sql.unsafe("VACUUM ANALYZE buy_requests")),
        Effect.zipRight(sql.unsafe("VACUUM ANALYZE buy_request_counts"))
      )
  )

const buyers = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    INSERT INTO users (id, phone_number, name)
    SELECT md5('growthuser' || i)::uuid, '+1557' || lpad(i::text, 7, '0'), 'Buyer ' || i
    FROM generate_series(1, ${BUYERS}) i`)
)

const median = (values: ReadonlyArray<number>) => percentiles(values).p50

const main = () =>
  withBenchServer("talab_growth_bench", { rateLimits: unlimitedRateLimits }, async (server, database) => {
    const reader = await signIn(server, "+966584000001")
    await onDatabase(database.url, buyers)
    const timeOf = async (path: string) => {
      const { ms, data } = await timedGet(server, reader.token, path)
      return { ms, items: data.requests.length as number }
    }
    // figures[query][page][size] = median ms
    const figures = new Map<string, Array<number>>()
    const buffers = new Map<string, Array<number>>()
    let rows = 0
    for (const size of SIZES) {
      const started = Date.now()
      await onDatabase(database.url, grow(rows, size))
      rows = size
      console.log(`table grown to ${size} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      for (const [name, query, where] of QUERIES) {
        for (const page of PAGES) {
          const path = `/requests?${query}${query ? "&" : ""}page=${page}&per_page=20`
          for (let i = 0; i < WARMUP_CALLS; i++) await timeOf(path)
          const times: Array<number> = []
          let items = 0
          for (let i = 0; i < CALLS; i++) {
            const call = await timeOf(path)
            times.push(call.ms)
            items = call.items
          }
          const key = `${name}, page ${page}`
          figures.set(key, [...(figures.get(key) ?? []), median(times)])
          buffers.set(key, [...(buffers.get(key) ?? []), await onDatabase(database.url, buffersOf(where, page))])
          if (items === 0) console.log(`  (${key} is empty at ${size} rows)`)
        }
      }
    }
    console.log(`\nGET /requests, median ms of ${CALLS} sequential calls, per table size (rows of buy_requests)`)
    console.log(
      `  ${"query".padEnd(26)} ${SIZES.map((s) => String(s).padStart(9)).join(" ")}  ${"max/min".padStart(7)}  target ≤ 1.5`
    )
    let worst = 0
    for (const [key, values] of figures) {
      const ratio = Math.max(...values) / Math.min(...values)
      worst = Math.max(worst, ratio)
      console.log(
        `  ${key.padEnd(26)} ${values.map((v) => v.toFixed(2).padStart(9)).join(" ")}  ${ratio.toFixed(2).padStart(7)}  ${ratio <= 1.5 ? "met" : "MISSED"}`
      )
    }
    console.log(
      `  target: every query within 1.5x across sizes; worst ${worst.toFixed(2)}x (${worst <= 1.5 ? "met" : "MISSED"})`
    )
    console.log(`\nthe same queries' SQL: buffers touched (shared hit + read), per table size`)
    for (const [key, values] of buffers) {
      const ratio = Math.max(...values) / Math.min(...values)
      console.log(
        `  ${key.padEnd(26)} ${values.map((v) => String(v).padStart(9)).join(" ")}  ${ratio.toFixed(2).padStart(7)}`
      )
    }
    console.log("  (a page 500 that is empty or short at the smallest size touches fewer buffers there)")
  })

runScenario(main)
