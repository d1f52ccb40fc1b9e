/*
 * Seller alerts on PostgreSQL: 100,000 alert rules, of which 10,000 sellers' rules match a new
 * request. Prints the plan of the matching query, then, for three requests posted one after the other:
 * - how long POST /requests took (it only writes the request and its outbox event, whatever matches);
 * - from the 201 to the moment all 10,000 `request_match` pushes are queued and committed (polled every 10 ms;
 *   the matcher looks for new requests every 250 ms, so up to that much is waiting for its next round).
 *
 *   pnpm bench alerts
 *
 * Rules are written straight in SQL; the request goes through the API of a real server (testkit's
 * startTestServer, with its background matcher) on a fresh database.
 */

import { SqlClient } from "@effect/sql"
import type { TestServer } from "@talab/testkit"
import { Effect } from "effect"
import { call, median, onDatabase, runScenario, signIn, unlimitedRateLimits, withBenchServer } from "../setup.js"

const MATCHING_SELLERS = 10_000
const OTHER_SELLERS = 10_000
const RULES_PER_OTHER_SELLER = 9 // 10,000 matching + 90,000 others = 100,000 rules
const ROUNDS = 3

const seedRules = (databaseUrl: string) =>
  onDatabase(
    databaseUrl,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const sellers = MATCHING_SELLERS + OTHER_SELLERS
      yield* sql.unsafe(`
        INSERT INTO users (id, phone_number, name, language, created_at)
        SELECT md5('alert-seller' || i)::uuid, '+1556' || lpad(i::text, 7, '0'), 'Seller ' || i,
               CASE WHEN i % 2 = 0 THEN 'en' ELSE 'ar' END, now() - interval '30 days'
        FROM generate_series(1, ${sellers}) i`)
      yield* sql.unsafe(`
        INSERT INTO seller_profiles (id, user_id, status, business_name, location_district, created_at, approved_at)
        SELECT md5('alert-profile' || i)::uuid, md5('alert-seller' || i)::uuid, 'approved', 'Shop ' || i, 'Olaya',
               now() - interval '30 days', now() - interval '29 days'
        FROM generate_series(1, ${sellers}) i`)
      // Sellers 1..10000: one rule for phones in Riyadh within the request's budget.
      yield* sql.unsafe(`
        INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, price_min, price_max, created_at)
        SELECT gen_random_uuid(), md5('alert-seller' || i)::uuid, ARRAY['phone'], ARRAY['Riyadh'], ARRAY['riyadh'],
               500, 5000, now()
        FROM generate_series(1, ${MATCHING_SELLERS}) i`)
      // The others: nine rules each, in 200 other cities, some for accessories.
      yield* sql.unsafe(`
        INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, created_at)
        SELECT gen_random_uuid(), md5('alert-seller' || i)::uuid,
               CASE WHEN k % 3 = 0 THEN ARRAY['accessory'] ELSE ARRAY['phone', 'accessory'] END,
               ARRAY['City ' || ((i * 9 + k) % 200)], ARRAY['city ' || ((i * 9 + k) % 200)], now()
        FROM generate_series(${MATCHING_SELLERS + 1}, ${sellers}) i, generate_series(1, ${RULES_PER_OTHER_SELLER}) k`)
      yield* sql.unsafe("ANALYZE users, seller_profiles, seller_alert_rules")
      const [{ rules }] = yield* sql<{ rules: number }>`SELECT count(*)::int AS rules FROM seller_alert_rules`
      return rules
    })
  )

/** The candidate step of the matcher's statement (alerts/Matcher.ts) for a batch of one request, as EXPLAIN ANALYZE shows it. */
const matchingPlan = (databaseUrl: string) =>
  onDatabase(
    databaseUrl,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`
        EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
        SELECT DISTINCT ON (b.request_id, rule.seller_user_id) b.request_id, rule.seller_user_id, rule.id AS rule_id
        FROM (VALUES (gen_random_uuid(), 'riyadh', 'phone', 1000::numeric, 2000::numeric,
                      '00000000-0000-0000-0000-000000000000'::uuid))
          AS b(request_id, city_key, category, budget_min, budget_max, buyer_id)
        JOIN seller_alert_rules rule
          ON rule.city_keys @> ARRAY[b.city_key]::text[] AND rule.categories @> ARRAY[b.category]::text[]
        JOIN seller_profiles sp ON sp.user_id = rule.seller_user_id AND sp.status = 'approved'
        WHERE (rule.price_min IS NULL OR rule.price_min <= b.budget_max)
          AND (rule.price_max IS NULL OR rule.price_max >= b.budget_min)
          AND rule.seller_user_id <> b.buyer_id
        ORDER BY b.request_id, rule.seller_user_id, rule.created_at, rule.id`)
      return rows.map((row) => row["QUERY PLAN"])
    })
  )

const queuedPushes = (databaseUrl: string, requestId: string) =>
  onDatabase(
    databaseUrl,
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ queued: number }>`
        SELECT count(*)::int AS queued FROM notifications
        WHERE type = 'request_match' AND payload -> 'data' ->> 'request_id' = ${requestId}`
    )
  )

const round = async (server: TestServer, databaseUrl: string, buyerToken: string, n: number) => {
  const posted = performance.now()
  const request = await call(server, "POST", "/requests", buyerToken, {
    category: "phone",
    product_brand: "Apple",
    product_model: `iPhone 15 bench ${n}`,
    budget_min: 1000,
    budget_max: 2000,
    location_district: "Olaya",
    location_city: "Riyadh"
  })
  const created = performance.now()
  const deadline = created + 120_000
  let queued = 0
  while (queued < MATCHING_SELLERS) {
    if (performance.now() > deadline) throw new Error(`only ${queued} pushes queued after 120 s`)
    await new Promise((resolve) => setTimeout(resolve, 10))
    ;[{ queued }] = await queuedPushes(databaseUrl, request.id)
  }
  const allQueued = performance.now()
  return { postMs: created - posted, queuedMs: allQueued - created }
}

const main = () =>
  withBenchServer("talab_alerts_bench", { rateLimits: unlimitedRateLimits }, async (server, database) => {
    const seeding = performance.now()
    const rules = await seedRules(database.url)
    console.log(
      `seeded ${rules} alert rules of ${MATCHING_SELLERS + OTHER_SELLERS} approved sellers in ${((performance.now() - seeding) / 1000).toFixed(1)} s`
    )
    console.log("\nmatching plan (a phone request in Riyadh: the 10,000 matching sellers among 100,000 rules)")
    for (const line of await matchingPlan(database.url)) console.log(`  ${line}`)

    const buyer = await signIn(server, "+966582999001")
    const results = []
    for (let n = 1; n <= ROUNDS; n++) {
      const result = await round(server, database.url, buyer.token, n)
      console.log(
        `\nrequest ${n}: POST /requests ${result.postMs.toFixed(0)} ms; 201 → all ${MATCHING_SELLERS} request_match pushes queued ${result.queuedMs.toFixed(0)} ms`
      )
      results.push(result)
    }
    console.log(
      `\nmedian of ${ROUNDS}: POST /requests ${median(results.map((r) => r.postMs)).toFixed(0)} ms; created → last push queued ${median(results.map((r) => r.queuedMs)).toFixed(0)} ms (${MATCHING_SELLERS} matching sellers, 100,000 rules; includes up to 250 ms waiting for the matcher's next round)`
    )
  })

void runScenario(main)
