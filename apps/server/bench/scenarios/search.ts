/*
 * Search of GET /requests on PostgreSQL (docs/SCALING.md, "Search at a million requests"): `q` of one and three
 * words, Latin and Arabic, with and without filters, at 10,000, 100,000 and 1,000,000 buy requests (a mix of 45
 * products in Latin and Arabic spellings, 40 notes in both languages, 30 cities). Prints:
 * - per size, the median and p95 of sequential calls by one client (the cost of one request);
 * - at the largest size, p95 of a load of 1 and of BENCH_CLIENTS (50) clients cycling over all the queries;
 * - at the largest size, EXPLAIN (ANALYZE, BUFFERS) of every statement the server runs for each query (the
 *   statements are RequestQueries' own, recorded as it runs them), and fails if one reads buy_requests by a
 *   sequential scan;
 * - the cost of the request insert with the search columns, the vocabulary and the GIN index, against the insert
 *   of before (no words, no index), and POST /requests end to end.
 *
 *   pnpm bench search
 *   BENCH_SEARCH_SIZES=10000,100000,1000000 …   table sizes, grown in place one after the other
 *   BENCH_SEARCH_CALLS=40 …                      sequential calls per figure (after 5 unmeasured)
 *   BENCH_SECONDS, BENCH_CLIENTS                 the loads at the largest size
 *
 * Rows are written with INSERT … SELECT generate_series over small tables of texts whose search words core's
 * normaliser made (the same `requestSearchWords` the server writes), the count triggers off and the GIN index dropped
 * while it runs, the counts rebuilt and the index built after, then VACUUM ANALYZE, as autovacuum would do in time.
 */
import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import { queryWordsOf } from "@talab/core"
import {
  AppConfig,
  AttachedImagesLayer,
  RequestQueries,
  recordTerms,
  requestSearchWords,
  ServerKeys,
  textArrayLiteral,
  withSearchColumns
} from "@talab/http-server"
import { Effect, Layer } from "effect"
import { benchSettings, type Call, formatReports, runLoad } from "../load.js"
import {
  as,
  median,
  newRequestCall,
  onDatabase,
  percentiles,
  runScenario,
  signIn,
  timedGet,
  unlimitedRateLimits,
  withBenchServer
} from "../setup.js"

const SIZES = (process.env.BENCH_SEARCH_SIZES ?? "10000,100000,1000000").split(",").map(Number)
const CALLS = Number(process.env.BENCH_SEARCH_CALLS ?? 40)
const WARMUP_CALLS = 5
const BUYERS = 2_000

const ARABIC_WORDS: Record<string, string> = {
  Apple: "ابل",
  iPhone: "ايفون",
  iPad: "ايباد",
  AirPods: "ايربودز",
  Samsung: "سامسونج",
  Galaxy: "جالكسي",
  Xiaomi: "شاومي",
  Redmi: "ريدمي",
  Huawei: "هواوي",
  Mate: "ميت",
  Oppo: "اوبو",
  Vivo: "فيفو",
  Honor: "هونر",
  OnePlus: "ون بلس",
  Google: "جوجل",
  Pixel: "بكسل",
  Nokia: "نوكيا",
  Realme: "ريلمي",
  Infinix: "انفنكس",
  Tecno: "تكنو",
  Pro: "برو",
  Max: "ماكس",
  Plus: "بلس",
  Ultra: "الترا",
  Mini: "ميني",
  Lite: "لايت",
  Note: "نوت",
  Fold: "فولد",
  Flip: "فليب"
}
const arabicDigits = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)))
const inArabic = (text: string) =>
  text
    .split(" ")
    .map((word) => ARABIC_WORDS[word] ?? arabicDigits(word))
    .join(" ")

const PRODUCTS: ReadonlyArray<readonly [string, string, "phone" | "accessory"]> = [
  ...["11", "12", "13", "13 Pro", "14", "14 Pro Max", "15", "15 Pro", "15 Pro Max", "16 Pro"].map(
    (model) => ["Apple", `iPhone ${model}`, "phone"] as const
  ),
  ["Apple", "iPad Mini 6", "accessory"],
  ["Apple", "iPad Air 5", "accessory"],
  ["Apple", "AirPods Pro 2", "accessory"],
  ["Apple", "AirPods Max", "accessory"],
  ...["S21", "S22 Ultra", "S23", "S23 Ultra", "S24 Ultra", "A14", "A34", "A54", "Z Fold 5", "Z Flip 5", "Note 20"].map(
    (model) => ["Samsung", `Galaxy ${model}`, "phone"] as const
  ),
  ["Xiaomi", "Redmi Note 12", "phone"],
  ["Xiaomi", "Redmi Note 13 Pro", "phone"],
  ["Xiaomi", "13T", "phone"],
  ["Huawei", "Mate 50", "phone"],
  ["Huawei", "P60 Pro", "phone"],
  ["Huawei", "Nova 11", "phone"],
  ["Oppo", "Reno 10", "phone"],
  ["Oppo", "A78", "phone"],
  ["Vivo", "Y36", "phone"],
  ["Honor", "X9a", "phone"],
  ["Honor", "Magic 5 Lite", "phone"],
  ["OnePlus", "11", "phone"],
  ["Google", "Pixel 7", "phone"],
  ["Google", "Pixel 8 Pro", "phone"],
  ["Nokia", "105", "phone"],
  ["Nokia", "G21", "phone"],
  ["Realme", "C55", "phone"],
  ["Infinix", "Hot 30", "phone"],
  ["Tecno", "Spark 10", "phone"],
  ["Samsung", "Galaxy Buds 2", "accessory"],
  ["Apple", "Watch Series 9", "accessory"]
]
/** Each product once in Latin and once in Arabic letters. */
const TITLES = PRODUCTS.flatMap(([brand, model, category]) => [
  { brand, model, category },
  { brand: inArabic(brand), model: inArabic(model), category }
])

const NOTES: ReadonlyArray<string | null> = [
  null,
  "بحالة ممتازة",
  "مع الضمان",
  "256GB any colour",
  "battery above 90%",
  "لون أسود فقط",
  "with box and charger",
  "استخدام نظيف بدون خدوش",
  "urgent please, today",
  "كرتون كامل مع الشاحن",
  "no scratches, original screen",
  "ذاكرة 128 جيجا",
  "512 GB, blue or silver",
  "أبغى جهاز مستعمل بسعر مناسب",
  "for my son, budget is firm",
  "ضمان سنة على الأقل",
  "dual SIM if possible",
  "اللون الذهبي أو الأبيض",
  "not refurbished",
  "نسخة عالمية وليس صيني",
  "can pick up in person",
  "توصيل للبيت لو ممكن",
  "eSIM version",
  "بطارية فوق ٨٥٪",
  "with the original cable",
  "الجهاز للهدية",
  "need it this week",
  "بدون مشاكل في الشاشة",
  "256 or more",
  "الذاكرة ٥١٢",
  "face id must work",
  "مع الفاتورة",
  "cash on delivery",
  "بصمة الوجه شغالة",
  "any condition ok",
  "نظيف جدا",
  "prefer sealed box",
  "مع كفر وحماية شاشة",
  "international version",
  "الشريحتين"
]
const DISTRICTS = [
  "Olaya",
  "Malaz",
  "Nakheel",
  "Sulaimaniyah",
  "Rawdah",
  "الملقا",
  "النرجس",
  "الياسمين",
  "حي الصفا",
  "الروضة",
  "Al Hamra",
  "Al Shati",
  "العزيزية",
  "Al Khobar North",
  "الفيصلية",
  "Al Naseem",
  "الربوة",
  "Al Andalus",
  "السلامة",
  "Al Wurud"
]
const CITIES = [
  "Riyadh",
  "Jeddah",
  "Dammam",
  "Mecca",
  "Medina",
  "Khobar",
  "Taif",
  "Tabuk",
  "Abha",
  "Hail",
  "Buraidah",
  "Khamis Mushait",
  "Najran",
  "Jazan",
  "Yanbu",
  "Al Ahsa",
  "Jubail",
  "Qatif",
  "Hafar Al Batin",
  "Al Kharj",
  "Arar",
  "Sakaka",
  "Al Baha",
  "Unaizah",
  "Bisha",
  "Al Qurayyat",
  "Dhahran",
  "Rabigh",
  "Al Majmaah",
  "Duba"
]

/*
 * The texts' tables: a row's search words are the concatenation of its parts' (duplicates do not matter to @> and
 * &&), as requestSearchWords makes them from the whole row.
 */
const words = (text: string | null) =>
  requestSearchWords({ productBrand: null, productModel: null, notes: text, locationDistrict: "", locationCity: null })
    .searchWords

const seedTexts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.gen(function* () {
    const titles = TITLES.map((t) =>
      requestSearchWords({
        productBrand: t.brand,
        productModel: t.model,
        notes: null,
        locationDistrict: "",
        locationCity: null
      })
    )
    yield* sql.unsafe(
      `
      CREATE TABLE bench_titles AS
      SELECT t.i, t.brand, t.model, t.category, t.words::text[] AS words, t.title::text[] AS title
      FROM jsonb_to_recordset($1::jsonb) AS t (i int, brand text, model text, category text, words text, title text)`,
      [
        JSON.stringify(
          TITLES.map((t, i) => ({
            ...t,
            i,
            words: textArrayLiteral(titles[i]!.searchWords),
            title: textArrayLiteral(titles[i]!.searchTitle)
          }))
        )
      ]
    )
    for (const [table, texts] of [
      ["bench_notes", NOTES],
      ["bench_districts", DISTRICTS],
      ["bench_cities", CITIES]
    ] as const) {
      yield* sql.unsafe(
        `CREATE TABLE ${table} AS
         SELECT t.i, t.text, t.words::text[] AS words
         FROM jsonb_to_recordset($1::jsonb) AS t (i int, text text, words text)`,
        [JSON.stringify(texts.map((text, i) => ({ i, text, words: textArrayLiteral(words(text)) })))]
      )
    }
    const vocabulary = [...titles.flatMap((t) => t.searchWords), ...[...NOTES, ...DISTRICTS, ...CITIES].flatMap(words)]
    const terms = recordTerms(sql, vocabulary)
    yield* terms.deletions
    yield* terms.terms
  })
)

/** Grows buy_requests from `from` rows to `to` (row i is created i × 25 s before the start). */
const grow = (from: number, to: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql
      .unsafe(`
      ALTER TABLE buy_requests DISABLE TRIGGER USER;
      DROP INDEX buy_requests_search;
      INSERT INTO buy_requests (id, buyer_id, category, product_brand, product_model, condition_pref, budget_min,
                                budget_max, location_district, location_city, notes, status, offer_count,
                                created_at, closed_at, expires_at, search_words, search_title)
      SELECT md5('search' || g.i)::uuid, md5('searchuser' || (1 + g.i % ${BUYERS}))::uuid,
             t.category, t.brand, t.model, (ARRAY['new','used','refurbished','any'])[1 + g.i % 4],
             500 + (g.i % 40) * 100, 1500 + (g.i % 40) * 150, d.text, c.text, n.text,
             CASE WHEN g.i % 5 = 0 THEN 'closed' ELSE 'active' END, g.i % 4,
             now() - make_interval(secs => g.i * 25),
             CASE WHEN g.i % 5 = 0 THEN now() - make_interval(secs => g.i * 25 - 10) END,
             GREATEST(now() - make_interval(secs => g.i * 25) + interval '30 days', now() + interval '1 day'),
             t.words || n.words || d.words || c.words, t.title
      FROM generate_series(${from + 1}, ${to}) g (i)
      JOIN bench_titles t ON t.i = g.i % ${TITLES.length}
      JOIN bench_notes n ON n.i = (g.i / 3) % ${NOTES.length}
      JOIN bench_districts d ON d.i = (g.i / 11) % ${DISTRICTS.length}
      JOIN bench_cities c ON c.i = (g.i / 7) % ${CITIES.length};
      CREATE INDEX buy_requests_search ON buy_requests USING gin (search_words);
      ALTER TABLE buy_requests ENABLE TRIGGER USER;
      DELETE FROM buy_request_counts;
      INSERT INTO buy_request_counts (status, category, location_city_key, n)
      SELECT status, category, COALESCE(location_city, ''), count(*) FROM buy_requests GROUP BY 1, 2, 3;`)
      .pipe(
        Effect.zipRight(sql.unsafe("VACUUM ANALYZE buy_requests")),
        Effect.zipRight(sql.unsafe("VACUUM ANALYZE buy_request_counts"))
      )
  )

const buyers = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    INSERT INTO users (id, phone_number, name)
    SELECT md5('searchuser' || i)::uuid, '+1558' || lpad(i::text, 7, '0'), 'Buyer ' || i
    FROM generate_series(1, ${BUYERS}) i`)
)

/** [name, query string] */
const QUERIES: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ["1 word, Latin", { q: "iphone" }],
  ["1 word, Arabic", { q: "سامسونج" }],
  ["3 words, Latin", { q: "iphone 15 pro" }],
  ["3 words, Arabic", { q: "ايفون ١٥ برو" }],
  ["1 word, Latin + filters", { q: "iphone", location_city: "Jeddah", category: "phone" }],
  ["1 word, Arabic + filters", { q: "سامسونج", location_city: "Jeddah", category: "phone" }],
  ["3 words, Latin + filters", { q: "iphone 15 pro", location_city: "Jeddah", category: "phone" }],
  ["3 words, Arabic + filters", { q: "ايفون ١٥ برو", location_city: "Jeddah", category: "phone" }],
  ["rare: nokia 105", { q: "nokia 105" }],
  ["typo + prefix: samsumg gal", { q: "samsumg gal" }],
  ["fits_price + budget_desc", { q: "galaxy", fits_price: "2000", sort: "budget_desc" }]
]
const pathOf = (query: Record<string, string>) => `/requests?${new URLSearchParams(query)}`

/** Every statement RequestQueries.list runs for `query`, with its parameters, as it runs them. */
const statementsOf = (query: Record<string, string>) =>
  Effect.gen(function* () {
    const recorded: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const queries = yield* RequestQueries
    yield* queries
      .list(
        {
          status: "active",
          category: query.category as "phone" | undefined,
          locationCity: query.location_city,
          query: query.q === undefined ? undefined : queryWordsOf(query.q),
          fitsPrice: query.fits_price === undefined ? undefined : Number(query.fits_price),
          sort: query.sort as "budget_desc" | undefined
        },
        { page: 1, perPage: 20 }
      )
      .pipe(
        Statement.withTransformer((statement) =>
          Effect.sync(() => {
            recorded.push(statement.compile())
            return statement
          })
        )
      )
    return recorded
  }).pipe(
    Effect.provide(
      RequestQueries.Default.pipe(
        Layer.provide(AttachedImagesLayer),
        Layer.provide(Layer.succeed(ServerKeys, { jwt: new Uint8Array(32), otp: new Uint8Array(32) })),
        Layer.provide(AppConfig.layer())
      )
    )
  )

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}
const nodesOf = (node: PlanNode): Array<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

const explain = (query: Record<string, string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const out: Array<{ ms: number; buffers: number; access: string; seqScan: boolean }> = []
    for (const [text, params] of yield* statementsOf(query)) {
      const rows = yield* sql.unsafe<{ "QUERY PLAN": any }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params)
      const top = rows[0]!["QUERY PLAN"][0]
      const nodes = nodesOf(top.Plan)
      const scans = nodes.filter((n) => n["Relation Name"] !== undefined)
      const access = [
        ...new Set(scans.map((n) => `${n["Node Type"]} ${n["Index Name"] ?? n["Relation Name"]}`.replace("Scan ", "")))
      ].join("; ")
      out.push({
        ms: top["Execution Time"],
        buffers: (top.Plan["Shared Hit Blocks"] ?? 0) + (top.Plan["Shared Read Blocks"] ?? 0),
        access,
        seqScan: scans.some((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "buy_requests")
      })
    }
    return out
  })

/** Inserts `n` requests, one statement each, as the repository writes them (`search`) or as it did before. */
const insertLoop = (n: number, search: boolean, round: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const times: Array<number> = []
      for (let i = 0; i < n; i++) {
        const title = TITLES[i % TITLES.length]!
        const row = {
          id: crypto.randomUUID(),
          buyer_id: "00000000-0000-0000-0000-000000000000",
          category: title.category,
          product_brand: title.brand,
          product_model: `${title.model} ${round}-${i}`,
          condition_pref: "any",
          budget_min: 1000,
          budget_max: 2000,
          location_district: DISTRICTS[i % DISTRICTS.length]!,
          location_city: CITIES[i % CITIES.length]!,
          notes: NOTES[i % NOTES.length] ?? null,
          status: "active",
          offer_count: 0,
          created_at: new Date(),
          expires_at: new Date(Date.now() + 30 * 86_400_000)
        }
        const started = performance.now()
        if (search) {
          const stored = withSearchColumns(row)
          const terms = recordTerms(sql, stored.searchWords)
          yield* sql`WITH a AS (${terms.deletions}), b AS (${terms.terms})
            INSERT INTO buy_requests ${sql.insert(stored.row)}`
        } else {
          yield* sql`INSERT INTO buy_requests ${sql.insert(row)}`
        }
        times.push(performance.now() - started)
      }
      return times
    })
  )

const main = () =>
  withBenchServer("talab_search_bench", { rateLimits: unlimitedRateLimits }, async (server, database) => {
    console.log("(timings taken on a 2-core machine shared with other work: read the buffers and plans as well)")
    const reader = await signIn(server, "+966584000002")
    await onDatabase(database.url, Effect.zipRight(buyers, seedTexts))
    const timeOf = async (path: string) => {
      const { ms, data } = await timedGet(server, reader.token, path)
      return { ms, total: data.pagination.total as number }
    }
    const medians = new Map<string, Array<number>>()
    const p95s = new Map<string, Array<number>>()
    const totals = new Map<string, Array<number>>()
    let rows = 0
    for (const size of SIZES) {
      const started = Date.now()
      await onDatabase(database.url, grow(rows, size))
      rows = size
      console.log(`table grown to ${size} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      for (const [name, query] of QUERIES) {
        const path = pathOf(query)
        for (let i = 0; i < WARMUP_CALLS; i++) await timeOf(path)
        const times: Array<number> = []
        let total = 0
        for (let i = 0; i < CALLS; i++) {
          const measured = await timeOf(path)
          times.push(measured.ms)
          total = measured.total
        }
        medians.set(name, [...(medians.get(name) ?? []), median(times)])
        p95s.set(name, [...(p95s.get(name) ?? []), percentiles(times).p95])
        totals.set(name, [...(totals.get(name) ?? []), total])
      }
    }
    const sizes = SIZES.map((s) => String(s).padStart(9)).join(" ")
    console.log(`\nGET /requests?q=…, median / p95 ms of ${CALLS} sequential calls by one client, per table size`)
    console.log(`  ${"query".padEnd(30)} ${sizes}   ${sizes}  max/min of medians`)
    for (const [name] of QUERIES) {
      const m = medians.get(name)!
      const p = p95s.get(name)!
      console.log(
        `  ${name.padEnd(30)} ${m.map((v) => v.toFixed(1).padStart(9)).join(" ")} / ${p.map((v) => v.toFixed(1).padStart(9)).join(" ")}  ${(Math.max(...m) / Math.min(...m)).toFixed(2)}   (total ${totals.get(name)!.join(", ")})`
      )
    }

    const { seconds, clients } = benchSettings()
    const calls: Array<Call> = as(
      reader.token,
      QUERIES.map(([, query]) => ({ method: "GET", path: pathOf(query) }))
    )
    const reports = []
    for (const n of [1, clients]) {
      reports.push(
        await runLoad(`search mix at ${rows} rows`, {
          baseUrl: server.apiUrl,
          clients: Array.from({ length: n }, (_, c) => [
            ...calls.slice(c % calls.length),
            ...calls.slice(0, c % calls.length)
          ]),
          durationMs: seconds * 1000,
          cycle: true
        })
      )
    }
    console.log(
      `\nthe queries above in a cycle, ${seconds} s per load, at ${rows} rows (target p95: 30 ms at 1 client, 150 ms at ${clients})`
    )
    console.log(formatReports(reports))

    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) at ${rows} rows of each statement GET /requests runs (page 1 of 20)`)
    console.log("| query | statement | ms | buffers | access paths |")
    console.log("|---|---|---:|---:|---|")
    let sequential = false
    for (const [name, query] of QUERIES) {
      const plans = await onDatabase(database.url, explain(query))
      plans.forEach((plan, i) => {
        sequential ||= plan.seqScan
        const statement = plans.length === 1 ? "page + total" : i === 0 ? "vocabulary" : "page + total"
        console.log(`| ${name} | ${statement} | ${plan.ms.toFixed(1)} | ${plan.buffers} | ${plan.access} |`)
      })
    }
    if (sequential) {
      console.log("a search read buy_requests by a sequential scan")
      process.exitCode = 1
    }

    // Request creation: the insert statement alone, in alternating rounds, and POST /requests end to end.
    const before: Array<number> = []
    const after: Array<number> = []
    await onDatabase(
      database.url,
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`INSERT INTO users (id, phone_number, name) VALUES ('00000000-0000-0000-0000-000000000000', '+15590000000', 'Bench')`
      )
    )
    // Alternating rounds with the index in place ("before" then adds only the index's entry for an empty array),
    // then one round of "before" without the index at all.
    for (let round = 0; round < 4; round++) {
      before.push(...(await onDatabase(database.url, insertLoop(300, false, round))))
      after.push(...(await onDatabase(database.url, insertLoop(300, true, round + 10))))
    }
    await onDatabase(
      database.url,
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP INDEX buy_requests_search`)
    )
    const unindexed = percentiles(await onDatabase(database.url, insertLoop(600, false, 99)))
    await onDatabase(
      database.url,
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`CREATE INDEX buy_requests_search ON buy_requests USING gin (search_words)`
      )
    )
    const b = percentiles(before)
    const a = percentiles(after)
    const posts = await runLoad("POST /requests, 1 client", {
      baseUrl: server.apiUrl,
      clients: [Array.from({ length: 2000 }, (_, k) => newRequestCall(0, k, "Riyadh", reader.token))],
      durationMs: Math.min(seconds, 10) * 1000
    })
    console.log(`\nthe request insert at ${rows} rows, ms per statement (${before.length} each, in alternating rounds)`)
    console.log(
      `  before, no GIN index at all            p50 ${unindexed.p50.toFixed(3)}  p95 ${unindexed.p95.toFixed(3)}`
    )
    console.log(`  before (no words; empty GIN entry)     p50 ${b.p50.toFixed(3)}  p95 ${b.p95.toFixed(3)}`)
    console.log(`  with words, vocabulary and GIN upkeep  p50 ${a.p50.toFixed(3)}  p95 ${a.p95.toFixed(3)}`)
    const base = Math.min(b.p50, unindexed.p50)
    console.log(
      `  difference at p50: ${(a.p50 - base).toFixed(3)} ms, ${(((a.p50 - base) / base) * 100).toFixed(0)}% of the insert`
    )
    console.log(formatReports([posts]))
    console.log(
      `  the difference is ${(((a.p50 - base) / posts.p50) * 100).toFixed(1)}% of a POST /requests (p50 ${posts.p50.toFixed(2)} ms)`
    )
  })

runScenario(main)
