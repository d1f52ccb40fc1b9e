/*
 * EXPLAIN (ANALYZE, BUFFERS) of every list query of the API on a seeded PostgreSQL database.
 *
 *   npx tsx apps/server/bench/explain.ts            (from the repository root)
 *   EXPLAIN_VERBOSE=1 …                             prints every plan in full, not only the summary lines
 *
 * Creates a fresh database, migrates it, seeds 100,000 buy requests and the rest (bench/seed.ts), ANALYZEs,
 * runs each query shape with the statement text the implementation uses (packages/http-server/src/<feature>/
 * Queries.ts, copied here with its bound parameters), and drops the database.
 */
import { SqlClient } from "@effect/sql"
import { DatabaseOptions, MigratedDatabaseLayer } from "@talab/http-server"
import { Effect, Logger, LogLevel, Redacted } from "effect"
import { createBenchDatabase, seedId, seedMarketplace, seedUser } from "./seed.js"

interface Shape {
  readonly name: string
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

// Probes: a buyer with requests and deals, a seller with ~200 offers and conversations, a request with offers.
const buyer = seedUser(21)
const seller = seedUser(20_001)
const request = seedId("request", 1)
const conversation = seedId("conv", "1-0")

const requestColumns = `id, category, product_brand, product_model, condition_pref, budget_min, budget_max,
  location_district, status, offer_count, created_at`

/** requests/Queries.ts `listMine`: one page and the total behind the same WHERE. */
const requestList = (
  name: string,
  where: string,
  params: ReadonlyArray<unknown>,
  page = 1,
  perPage = 20
): Array<Shape> => [
  {
    name: `${name} (page ${page})`,
    text: `SELECT ${requestColumns} FROM buy_requests WHERE ${where}
           ORDER BY created_at DESC, id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
    params
  },
  { name: `${name} (total)`, text: `SELECT COUNT(*) AS total FROM buy_requests WHERE ${where}`, params }
]

/**
 * requests/Queries.ts `list`: the page as above; the total summed from buy_request_counts (migration 0005),
 * whose columns are named like buy_requests' but for location_city_key.
 */
const publicRequestList = (name: string, where: string, params: ReadonlyArray<unknown>): Array<Shape> => [
  ...requestList(name, where, params).slice(0, 1),
  {
    name: `${name} (total)`,
    text: `SELECT COALESCE(SUM(n), 0) AS total FROM buy_request_counts
           WHERE ${where.replace("location_city", "location_city_key")}`,
    params
  }
]

/** deals/Queries.ts `pageRows` and `total`, for one role or both. */
const dealList = (name: string, columns: ReadonlyArray<"buyer_id" | "seller_id">, status?: string): Array<Shape> => {
  const statusFilter = status === undefined ? "" : ` AND status = '${status}'`
  const ids = columns
    .map((c) => `(SELECT id FROM deals WHERE ${c} = $1${statusFilter} ORDER BY created_at DESC, id DESC LIMIT 20)`)
    .join(" UNION ALL ")
  return [
    {
      name: `${name} (page 1)`,
      text: `SELECT d.id, d.status, d.created_at, d.request_id, r.product_brand, r.product_model, d.offer_id, o.price,
                    d.buyer_id, b.name AS buyer_name, d.seller_id, s.name AS seller_name,
                    COALESCE(p.rating_avg, 0) AS seller_rating_avg
             FROM deals d
             JOIN buy_requests r ON r.id = d.request_id
             JOIN offers o ON o.id = d.offer_id
             JOIN users b ON b.id = d.buyer_id
             JOIN users s ON s.id = d.seller_id
             LEFT JOIN seller_profiles p ON p.user_id = d.seller_id
             WHERE d.id IN (${ids})
             ORDER BY d.created_at DESC, d.id DESC
             LIMIT 20 OFFSET 0`,
      params: [columns[0] === "seller_id" ? seller : buyer]
    },
    {
      name: `${name} (total)`,
      text: `SELECT ${columns.map((c) => `(SELECT COUNT(*) FROM deals WHERE ${c} = $1${statusFilter})`).join(" + ")} AS total`,
      params: [columns[0] === "seller_id" ? seller : buyer]
    }
  ]
}

/** reports/Queries.ts `page` and `total`. */
const adminReports = (name: string, status: string | undefined): Array<Shape> => {
  const where = status === undefined ? "" : "WHERE rp.status = $1"
  const params = status === undefined ? [] : [status]
  return [
    {
      name: `${name} (page 1)`,
      text: `SELECT rp.id, rp.reporter_id, ru.name AS reporter_name, ru.phone_number AS reporter_phone_number,
                    rp.reported_user_id, tu.name AS reported_name, tu.phone_number AS reported_phone_number,
                    rp.deal_id, d.request_id AS deal_request_id, d.status AS deal_status,
                    rp.reason, rp.description, rp.status, rp.action, rp.resolution_notes, rp.resolved_at, rp.created_at
             FROM reports rp
             JOIN users ru ON ru.id = rp.reporter_id
             JOIN users tu ON tu.id = rp.reported_user_id
             LEFT JOIN deals d ON d.id = rp.deal_id
             ${where}
             ORDER BY rp.created_at DESC, rp.id DESC
             LIMIT 20 OFFSET 0`,
      params
    },
    { name: `${name} (total)`, text: `SELECT COUNT(*) AS total FROM reports rp ${where}`, params }
  ]
}

const shapes: ReadonlyArray<Shape> = [
  ...publicRequestList("GET /requests", "(status = $1)", ["active"]),
  ...publicRequestList("GET /requests?category=accessory", "(status = $1 AND category = $2)", ["active", "accessory"]),
  ...publicRequestList("GET /requests?location_city=Jeddah", "(status = $1 AND location_city = $2)", [
    "active",
    "Jeddah"
  ]),
  ...publicRequestList(
    "GET /requests?category=phone&location_city=Jeddah",
    "(status = $1 AND category = $2 AND location_city = $3)",
    ["active", "phone", "Jeddah"]
  ),
  ...publicRequestList("GET /requests?status=closed", "(status = $1)", ["closed"]),
  ...requestList("GET /requests deep page", "(status = $1)", ["active"], 2000).slice(0, 1),
  ...requestList("GET /requests/my", "(buyer_id = $1)", [buyer]),
  {
    name: "GET /requests/{id}/offers (owner)",
    text: `SELECT o.id, o.request_id, o.seller_id, o.price, o.availability, o.condition_notes, o.warranty_notes,
                  o.status, o.created_at, u.name AS seller_name, p.rating_avg AS seller_rating_avg,
                  p.rating_count AS seller_rating_count, p.location_district AS seller_location_district
           FROM offers o
           JOIN users u ON u.id = o.seller_id
           JOIN seller_profiles p ON p.user_id = o.seller_id
           WHERE o.request_id = $1 AND o.status <> 'withdrawn'
           ORDER BY o.created_at DESC, o.id DESC`,
    params: [request]
  },
  {
    name: "GET /offers/my (page 1)",
    text: `SELECT o.id, o.request_id, o.price, o.status, o.created_at, r.product_brand, r.product_model, r.budget_max
           FROM offers o
           JOIN buy_requests r ON r.id = o.request_id
           WHERE o.seller_id = $1
           ORDER BY o.created_at DESC, o.id DESC
           LIMIT 20 OFFSET 0`,
    params: [seller]
  },
  {
    name: "GET /offers/my (total)",
    text: `SELECT COUNT(*) AS total FROM offers WHERE seller_id = $1`,
    params: [seller]
  },
  {
    name: "GET /offers/my?status=pending (page 1)",
    text: `SELECT o.id, o.request_id, o.price, o.status, o.created_at, r.product_brand, r.product_model, r.budget_max
           FROM offers o
           JOIN buy_requests r ON r.id = o.request_id
           WHERE o.seller_id = $1 AND o.status = $2
           ORDER BY o.created_at DESC, o.id DESC
           LIMIT 20 OFFSET 0`,
    params: [seller, "pending"]
  },
  ...dealList("GET /deals/my?role=buyer", ["buyer_id"]),
  ...dealList("GET /deals/my?role=seller", ["seller_id"]),
  ...dealList("GET /deals/my (both roles)", ["buyer_id", "seller_id"]),
  ...dealList("GET /deals/my?role=seller&status=completed", ["seller_id"], "completed").slice(0, 1),
  {
    name: "GET /admin/seller-profiles/pending (page 1)",
    text: `SELECT p.id, p.user_id, p.status, p.business_name, p.location_district, p.location_city, p.bio,
                  p.rating_avg, p.rating_count, p.created_at, u.phone_number AS user_phone_number, u.name AS user_name
           FROM seller_profiles p
           JOIN users u ON u.id = p.user_id
           WHERE p.status = 'pending'
           ORDER BY p.created_at DESC, p.id DESC
           LIMIT 20 OFFSET 0`,
    params: []
  },
  {
    name: "GET /admin/seller-profiles/pending (total)",
    text: `SELECT COUNT(*) AS total FROM seller_profiles WHERE status = 'pending'`,
    params: []
  },
  ...adminReports("GET /admin/reports", undefined),
  ...adminReports("GET /admin/reports?status=pending", "pending"),
  ...adminReports("GET /admin/reports?status=resolved", "resolved").slice(0, 1),
  {
    name: "GET /conversations/my (page 1, seller)",
    text: `WITH mine AS (
             (SELECT id, offer_id, created_at, last_message_at, seller_id AS other_id FROM conversations
              WHERE buyer_id = $1
              ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT 20)
             UNION ALL
             (SELECT id, offer_id, created_at, last_message_at, buyer_id AS other_id FROM conversations
              WHERE seller_id = $1
              ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT 20)
           ), page AS (
             SELECT * FROM mine
             ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT 20 OFFSET 0
           )
           SELECT p.id, p.offer_id, p.created_at, u.id AS other_id, u.name AS other_name,
                  u.avatar_url AS other_avatar_url, last.message_text AS last_text, last.created_at AS last_created_at,
                  (SELECT count(*) FROM messages m
                   WHERE m.conversation_id = p.id AND m.sender_id = p.other_id AND m.read_at IS NULL)::int AS unread_count
           FROM page p
           JOIN users u ON u.id = p.other_id
           LEFT JOIN LATERAL (
             SELECT message_text, created_at FROM messages m
             WHERE m.conversation_id = p.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1
           ) last ON true
           ORDER BY COALESCE(p.last_message_at, p.created_at) DESC, p.id DESC`,
    params: [seller]
  },
  {
    name: "GET /conversations/my (total)",
    text: `SELECT ((SELECT count(*) FROM conversations WHERE buyer_id = $1)
                 + (SELECT count(*) FROM conversations WHERE seller_id = $1))::int AS total`,
    params: [seller]
  },
  {
    name: "GET /conversations/{id}/messages",
    text: `SELECT id, conversation_id, sender_id, message_text, read_at, created_at FROM messages
           WHERE conversation_id = $1
           ORDER BY created_at DESC, id DESC
           LIMIT 51`,
    params: [conversation]
  }
]

/** The plan lines worth reading at a glance: scans, sorts, and the timings. */
const keyLines = (plan: ReadonlyArray<string>) =>
  plan.filter((line) => /Scan|Sort Method|Sort {2}|Limit|Execution Time|Planning Time|Rows Removed/.test(line))

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* seedMarketplace
  const verbose = process.env.EXPLAIN_VERBOSE === "1"
  const summary: Array<{ name: string; scans: string; ms: string; seq: boolean }> = []
  for (const shape of shapes) {
    // The pool has several connections: run twice inside one so the second sees warm caches, as a running server would.
    const explain = sql.unsafe<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${shape.text}`,
      shape.params as Array<any>
    )
    const rows = yield* sql.withTransaction(Effect.zipRight(explain, explain))
    const plan = rows.map((row) => row["QUERY PLAN"])
    console.log(`\n=== ${shape.name}`)
    for (const line of verbose ? plan : keyLines(plan)) console.log(line)
    const scans = plan
      .map(
        (line) =>
          /((?:Parallel )?(?:Seq|Index Only|Index|Bitmap Heap|Bitmap Index) Scan(?: Backward)?(?: using \S+)? on \S+)/.exec(
            line
          )?.[1]
      )
      .filter((x): x is string => x !== undefined)
    summary.push({
      name: shape.name,
      scans: [...new Set(scans)].join("; "),
      ms: /Execution Time: ([\d.]+) ms/.exec(plan.join("\n"))?.[1] ?? "?",
      seq: scans.some((s) => s.includes("Seq Scan"))
    })
  }
  console.log("\n=== Summary (execution time, scans)")
  for (const row of summary)
    console.log(`${row.seq ? "SEQ " : "    "}${row.ms.padStart(9)} ms  ${row.name}\n                   ${row.scans}`)
})

const main = async () => {
  const database = await createBenchDatabase("talab_explain")
  console.log(`database ${database.name}`)
  try {
    await Effect.runPromise(
      program.pipe(
        Effect.provide(MigratedDatabaseLayer(DatabaseOptions.Postgres({ url: Redacted.make(database.url) }))),
        Logger.withMinimumLogLevel(LogLevel.Info)
      )
    )
  } finally {
    await database.drop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
