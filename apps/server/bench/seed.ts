import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

/*
 * A marketplace-sized data set written straight in SQL (generate_series), for EXPLAIN plans and benchmarks.
 * Ids are md5-derived so both SQL and TypeScript can name the same rows: `seedId("request", 42)`.
 *
 *   users            20,000 buyers (1..20000) + 500 sellers (20001..20500)
 *   seller_profiles  450 approved, 30 pending, 20 suspended
 *   buy_requests     100,000 (every 5th closed), newest is request 1, one every 25 s back ~29 days
 *   offers           3 per request for the newest 30,000 (90,000), each with its conversation
 *   messages         3 per conversation of the newest 10,000 requests (90,000)
 *   deals            6,000 (the closed requests among the newest 30,000), ratings for the completed ones
 *   reports          5,000 (pending, resolved, dismissed)
 */

export const SEED = {
  buyers: 20_000,
  sellers: 500,
  approvedSellers: 450,
  requests: 100_000,
  requestsWithOffers: 30_000,
  requestsWithMessages: 10_000,
  reports: 5_000
} as const

/** The uuid the seed gives row `n` of `kind` (md5 of kind + n, as PostgreSQL's md5(text)::uuid). */
export const seedId = (kind: string, n: number | string) => {
  const hex = createHash("md5").update(`${kind}${n}`).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
/** Seeded user number n (buyers 1..20000, sellers 20001..20500). */
export const seedUser = (n: number) => seedId("user", n)

const statements: ReadonlyArray<readonly [string, string]> = [
  [
    "users",
    `INSERT INTO users (id, phone_number, name, language, is_admin, created_at)
     SELECT md5('user' || i)::uuid, '+1555' || lpad(i::text, 7, '0'), 'User ' || i,
            CASE WHEN i % 4 = 0 THEN 'en' ELSE 'ar' END, false, now() - interval '60 days'
     FROM generate_series(1, ${SEED.buyers + SEED.sellers}) i`
  ],
  [
    "seller_profiles",
    `INSERT INTO seller_profiles (id, user_id, status, business_name, location_district, location_city, bio,
                                  rating_avg, rating_count, created_at, approved_at)
     SELECT md5('profile' || s)::uuid, md5('user' || (${SEED.buyers} + s))::uuid,
            CASE WHEN s <= ${SEED.approvedSellers} THEN 'approved' WHEN s <= 480 THEN 'pending' ELSE 'suspended' END,
            'Shop ' || s, (ARRAY['Olaya','Malaz','Nakheel','Sulaimaniyah','Rawdah'])[1 + s % 5], 'Riyadh', NULL,
            0, 0, now() - interval '50 days' + make_interval(mins => s),
            CASE WHEN s <= ${SEED.approvedSellers} OR s > 480 THEN now() - interval '40 days' END
     FROM generate_series(1, ${SEED.sellers}) s`
  ],
  [
    "buy_requests",
    `INSERT INTO buy_requests (id, buyer_id, category, product_brand, product_model, condition_pref, budget_min,
                               budget_max, location_district, location_city, notes, status, offer_count,
                               created_at, closed_at, expires_at)
     SELECT md5('request' || i)::uuid, md5('user' || (1 + i % ${SEED.buyers}))::uuid,
            CASE WHEN i % 10 < 7 THEN 'phone' ELSE 'accessory' END,
            (ARRAY['Apple','Samsung','Xiaomi','Huawei','Oppo'])[1 + i % 5], 'Model ' || (i % 50),
            (ARRAY['new','used','refurbished','any'])[1 + i % 4],
            500 + (i % 20) * 100, 1500 + (i % 20) * 100,
            (ARRAY['Olaya','Malaz','Nakheel','Sulaimaniyah','Rawdah'])[1 + i % 5],
            (ARRAY['Riyadh','Jeddah','Dammam','Mecca','Medina','Khobar','Taif','Tabuk','Abha','Hail'])[1 + (i / 7) % 10],
            NULL,
            CASE WHEN i % 5 = 0 THEN 'closed' ELSE 'active' END,
            CASE WHEN i <= ${SEED.requestsWithOffers} THEN 3 ELSE 0 END,
            now() - make_interval(secs => i * 25),
            CASE WHEN i % 5 = 0 THEN now() - make_interval(secs => i * 25 - 10) END,
            now() - make_interval(secs => i * 25) + interval '30 days'
     FROM generate_series(1, ${SEED.requests}) i`
  ],
  [
    "offers",
    `INSERT INTO offers (id, request_id, seller_id, price, availability, status, created_at)
     SELECT md5('offer' || i || '-' || k)::uuid, md5('request' || i)::uuid,
            md5('user' || (${SEED.buyers + 1} + (i + k * 150) % ${SEED.approvedSellers}))::uuid,
            1000 + (i % 20) * 100 + k * 10, 'Today',
            CASE WHEN i % 5 <> 0 THEN 'pending' WHEN k = 0 THEN 'accepted' ELSE 'rejected' END,
            now() - make_interval(secs => i * 25 - (k + 1) * 2)
     FROM generate_series(1, ${SEED.requestsWithOffers}) i, generate_series(0, 2) k`
  ],
  [
    "conversations",
    `INSERT INTO conversations (id, offer_id, buyer_id, seller_id, created_at, last_message_at)
     SELECT md5('conv' || i || '-' || k)::uuid, md5('offer' || i || '-' || k)::uuid,
            md5('user' || (1 + i % ${SEED.buyers}))::uuid,
            md5('user' || (${SEED.buyers + 1} + (i + k * 150) % ${SEED.approvedSellers}))::uuid,
            now() - make_interval(secs => i * 25 - (k + 1) * 2),
            CASE WHEN i <= ${SEED.requestsWithMessages} THEN now() - make_interval(secs => i * 25 - (k + 1) * 2 - 3) END
     FROM generate_series(1, ${SEED.requestsWithOffers}) i, generate_series(0, 2) k`
  ],
  [
    "messages",
    `INSERT INTO messages (id, conversation_id, seq, sender_id, message_text, read_at, created_at)
     SELECT md5('message' || i || '-' || k || '-' || n)::uuid, md5('conv' || i || '-' || k)::uuid, n,
            CASE WHEN n = 2 THEN md5('user' || (${SEED.buyers + 1} + (i + k * 150) % ${SEED.approvedSellers}))::uuid
                 ELSE md5('user' || (1 + i % ${SEED.buyers}))::uuid END,
            'Message ' || n,
            CASE WHEN n < 3 THEN now() - make_interval(secs => i * 25 - (k + 1) * 2 - n) END,
            now() - make_interval(secs => i * 25 - (k + 1) * 2 - n)
     FROM generate_series(1, ${SEED.requestsWithMessages}) i, generate_series(0, 2) k, generate_series(1, 3) n`
  ],
  [
    "deals",
    `INSERT INTO deals (id, request_id, offer_id, buyer_id, seller_id, conversation_id, status, created_at,
                        completed_at, cancelled_at, cancel_reason)
     SELECT md5('deal' || i)::uuid, md5('request' || i)::uuid, md5('offer' || i || '-0')::uuid,
            md5('user' || (1 + i % ${SEED.buyers}))::uuid,
            md5('user' || (${SEED.buyers + 1} + i % ${SEED.approvedSellers}))::uuid,
            md5('conv' || i || '-0')::uuid,
            CASE WHEN i % 10 = 0 THEN 'completed' WHEN i % 15 = 0 THEN 'cancelled' ELSE 'accepted' END,
            now() - make_interval(secs => i * 25 - 10),
            CASE WHEN i % 10 = 0 THEN now() - make_interval(secs => i * 25 - 20) END,
            CASE WHEN i % 10 <> 0 AND i % 15 = 0 THEN now() - make_interval(secs => i * 25 - 20) END,
            CASE WHEN i % 10 <> 0 AND i % 15 = 0 THEN 'Changed my mind' END
     FROM generate_series(5, ${SEED.requestsWithOffers}, 5) i`
  ],
  [
    "ratings",
    `INSERT INTO ratings (id, deal_id, seller_id, buyer_id, rating, created_at)
     SELECT md5('rating' || i)::uuid, md5('deal' || i)::uuid,
            md5('user' || (${SEED.buyers + 1} + i % ${SEED.approvedSellers}))::uuid,
            md5('user' || (1 + i % ${SEED.buyers}))::uuid, 1 + i % 5, now() - make_interval(secs => i * 25 - 30)
     FROM generate_series(10, ${SEED.requestsWithOffers}, 10) i`
  ],
  [
    "seller ratings",
    `UPDATE seller_profiles p SET rating_avg = round(r.avg, 2), rating_count = r.count
     FROM (SELECT seller_id, avg(rating) AS avg, count(*) AS count FROM ratings GROUP BY seller_id) r
     WHERE p.user_id = r.seller_id`
  ],
  [
    "reports",
    `INSERT INTO reports (id, reporter_id, reported_user_id, reason, status, action, resolved_at, created_at)
     SELECT md5('report' || j)::uuid, md5('user' || (1 + j % ${SEED.buyers}))::uuid,
            md5('user' || (${SEED.buyers + 1} + j % ${SEED.approvedSellers}))::uuid,
            (ARRAY['fake_offer','no_show','rude','scam','other'])[1 + j % 5],
            CASE j % 3 WHEN 0 THEN 'pending' WHEN 1 THEN 'resolved' ELSE 'dismissed' END,
            CASE j % 3 WHEN 0 THEN NULL WHEN 1 THEN 'warn' ELSE 'dismiss' END,
            CASE WHEN j % 3 <> 0 THEN now() - make_interval(mins => j) END,
            now() - make_interval(mins => j * 5)
     FROM generate_series(1, ${SEED.reports}) j`
  ]
]

/** Fills a migrated, empty marketplace database, then VACUUM ANALYZE (as autovacuum would, in time). */
export const seedMarketplace = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const [table, statement] of statements) {
    const started = Date.now()
    yield* sql.unsafe(statement)
    yield* Effect.logInfo(`seeded ${table} in ${Date.now() - started} ms`)
  }
  yield* sql.unsafe("VACUUM ANALYZE")
})

const ADMIN_URL = process.env.TALAB_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const onMaintenanceDatabase = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(ADMIN_URL), maxConnections: 1 })),
      Effect.orDie
    )
  )

/** A new, empty PostgreSQL database; drop it with the returned function. */
export const createBenchDatabase = async (prefix: string) => {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`
  await onMaintenanceDatabase((sql) => sql`CREATE DATABASE ${sql(name)}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () =>
      onMaintenanceDatabase((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).then(() => undefined)
  }
}
