import type { SqlClient } from "@effect/sql"
import { deletionsOf, indexWordsOf } from "@talab/core"
import { textArrayLiteral } from "../db/PgArrays.js"

/*
 * What a request stores for search (docs/DECISIONS.md, "Search"). The words are made here, by core's normaliser,
 * never in SQL: the database only looks them up.
 *
 * - buy_requests.search_words: the index words of its brand, model, notes, district and city (GIN
 *   buy_requests_search); search_title: those of its brand and model alone, for relevance.
 * - search_terms: every word ever stored, in byte order (COLLATE "C"), so the words a prefix starts are one range
 *   of its primary key.
 * - search_term_deletions: each term under each of its one-letter deletions, so the terms one typo from a query
 *   word are found by equality (core's `deletionsOf`), and then checked by core's `withinOneTypo`.
 */

/** The search columns of a request. */
export interface RequestSearchWords {
  readonly searchWords: ReadonlyArray<string>
  readonly searchTitle: ReadonlyArray<string>
}

/** The search columns of a request with these texts. */
export const requestSearchWords = (request: {
  readonly productBrand: string | null
  readonly productModel: string | null
  readonly notes: string | null
  readonly locationDistrict: string
  readonly locationCity: string | null
}): RequestSearchWords => ({
  searchWords: indexWordsOf(
    request.productBrand,
    request.productModel,
    request.notes,
    request.locationDistrict,
    request.locationCity
  ),
  searchTitle: indexWordsOf(request.productBrand, request.productModel)
})

/** A stored request's row (its column names) as it is inserted: with its search columns, and the words they hold. */
export const withSearchColumns = <
  R extends {
    readonly product_brand: string | null
    readonly product_model: string | null
    readonly notes: string | null
    readonly location_district: string
    readonly location_city: string | null
  }
>(
  row: R
) => {
  const { searchWords, searchTitle } = requestSearchWords({
    productBrand: row.product_brand,
    productModel: row.product_model,
    notes: row.notes,
    locationDistrict: row.location_district,
    locationCity: row.location_city
  })
  return {
    row: { ...row, search_words: textArrayLiteral(searchWords), search_title: textArrayLiteral(searchTitle) },
    searchWords
  }
}

/**
 * Records `words` in the vocabulary: new terms with their deletions (a known term's deletions are already there),
 * two statements run in this order, `deletions` first (it looks for the terms `terms` adds), or as one. ON CONFLICT DO NOTHING lets creates that bring the same new word run side by side; the words go
 * in sorted, so two such inserts take the keys in one order.
 */
export const recordTerms = (sql: SqlClient.SqlClient, words: ReadonlyArray<string>) => {
  const sorted = [...new Set(words)].sort()
  const deletions = sorted.flatMap((word) => deletionsOf(word).map((deletion) => ({ deletion, word })))
  return {
    terms: sql`INSERT INTO search_terms (word)
      SELECT unnest(${textArrayLiteral(sorted)}::text[]) ON CONFLICT DO NOTHING`,
    deletions: sql`INSERT INTO search_term_deletions (deletion, word)
      SELECT d.deletion, d.word
      FROM unnest(${textArrayLiteral(deletions.map((d) => d.deletion))}::text[],
                  ${textArrayLiteral(deletions.map((d) => d.word))}::text[]) AS d (deletion, word)
      WHERE NOT EXISTS (SELECT 1 FROM search_terms t WHERE t.word = d.word COLLATE "C")
      ORDER BY d.deletion, d.word
      ON CONFLICT DO NOTHING`
  }
}
