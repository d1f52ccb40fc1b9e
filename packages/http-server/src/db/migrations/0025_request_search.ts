import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"
import { recordTerms, requestSearchWords } from "../../search/SearchWords.js"
import { textArrayLiteral } from "../PgArrays.js"

/*
 * Search of buy requests and alert keywords (docs/DECISIONS.md, "Search"; the columns and tables are described in
 * search/SearchWords.ts). The words are core's normaliser's, so the existing requests are given theirs here, in
 * batches of BATCH by id, before the GIN index is built (one build instead of an update per row).
 * seller_alert_rules.keywords holds a rule's keywords as the seller wrote them (none: any request).
 */
const BATCH = 1000

interface Row {
  readonly id: string
  readonly productBrand: string | null
  readonly productModel: string | null
  readonly notes: string | null
  readonly locationDistrict: string
  readonly locationCity: string | null
}

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE buy_requests
      ADD COLUMN search_words text[] NOT NULL DEFAULT '{}',
      ADD COLUMN search_title text[] NOT NULL DEFAULT '{}';
    CREATE TABLE search_terms (word text COLLATE "C" PRIMARY KEY);
    CREATE TABLE search_term_deletions (
      deletion text COLLATE "C" NOT NULL,
      word text COLLATE "C" NOT NULL,
      PRIMARY KEY (deletion, word)
    );
    ALTER TABLE seller_alert_rules ADD COLUMN keywords text[] NOT NULL DEFAULT '{}'
      CONSTRAINT seller_alert_rules_keywords_count CHECK (cardinality(keywords) <= 5);
  `
  let after = "00000000-0000-0000-0000-000000000000"
  for (;;) {
    const rows = yield* sql<Row>`
      SELECT id, product_brand AS "productBrand", product_model AS "productModel", notes,
             location_district AS "locationDistrict", location_city AS "locationCity"
      FROM buy_requests WHERE id > ${after} ORDER BY id LIMIT ${BATCH}`
    if (rows.length === 0) break
    const words = rows.map((row) => ({ id: row.id, ...requestSearchWords(row) }))
    yield* sql`
      UPDATE buy_requests SET search_words = w.search_words::text[], search_title = w.search_title::text[]
      FROM jsonb_to_recordset(${JSON.stringify(
        words.map((w) => ({
          id: w.id,
          search_words: textArrayLiteral(w.searchWords),
          search_title: textArrayLiteral(w.searchTitle)
        }))
      )}::jsonb) AS w (id uuid, search_words text, search_title text)
      WHERE buy_requests.id = w.id`
    const terms = recordTerms(
      sql,
      words.flatMap((w) => w.searchWords)
    )
    yield* terms.deletions
    yield* terms.terms
    after = rows.at(-1)!.id
  }
  yield* sql`CREATE INDEX buy_requests_search ON buy_requests USING gin (search_words)`
})
