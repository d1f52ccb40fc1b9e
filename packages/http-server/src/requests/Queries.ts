import { SqlClient, type Statement } from "@effect/sql"
import { RequestDetail, RequestListItem } from "@talab/contract"
import {
  type Category,
  deletionsOf,
  maskedField,
  matchOf,
  NotFound,
  PREFIX_MIN_LENGTH,
  type RequestStatus,
  type SearchSort,
  TYPO_MIN_LENGTH
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { textArrayLiteral } from "../db/PgArrays.js"
import { columnsAs, fieldNames } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest } from "../http/Paging.js"
import { requestFirstPhotoColumn, type ShownImage } from "../images/Queries.js"
import { SignedImageUrls, signedUrlsServableUntil } from "../images/SignedUrls.js"
import { cacheableAnswer, REQUEST_LISTS, requestTag, userTag } from "../readcache/ReadCache.js"
import { makeSearchGate, SEARCH_GATE } from "../search/SearchGate.js"

type ListItem = typeof RequestListItem.Type

/** A row of a page with the list's total beside it; an empty page is one row of nulls with the total. */
type PageRow = { readonly [K in keyof Omit<ListItem, "thumbnailUrl">]: ListItem[K] | null } & {
  readonly firstPhoto: ShownImage | null
  readonly total: number
  readonly n: number | null
}

type DetailRow = Omit<typeof RequestDetail.Type, "buyer" | "photos"> & {
  readonly photos: ReadonlyArray<ShownImage>
  readonly buyerId: string
  readonly buyerName: string | null
  readonly buyerDeleted: boolean
  /** The seller of the request's accepted offer, if any: with its buyer, who reads its notes unmasked. */
  readonly dealtSellerId: string | null
}

export interface RequestFilters {
  readonly status: RequestStatus
  readonly category?: Category | undefined
  readonly locationCity?: string | undefined
  /** The words of `q` (core's `queryWordsOf`), every one of which must match. */
  readonly query?: ReadonlyArray<string> | undefined
  /** A price the budget range must contain. */
  readonly fitsPrice?: number | undefined
  readonly sort?: SearchSort | undefined
}

/** The most words of the vocabulary one query word's prefix stands for (the first in byte order). */
const MAX_PREFIX_EXPANSION = 2000

/** The words of the vocabulary a query word matches, and those of them it matches without a typo. */
interface Expansion {
  readonly word: string
  readonly matched: ReadonlyArray<string>
  readonly untypoed: ReadonlyArray<string>
}

// Status and offer_count are the effective ones (below); the rest is read as stored.
const storedListColumns = columnsAs("buy_requests", fieldNames(RequestListItem, "status", "offerCount", "thumbnailUrl"))

const detailColumns = columnsAs("(d.request)", [
  ...fieldNames(RequestDetail, "buyer", "status", "offerCount", "photos"),
  "buyerId"
])

/** When time alone first changes what these requests show: the expiry of the first still active. */
const changesAtOf = (requests: ReadonlyArray<Pick<ListItem, "status" | "expiresAt">>) => {
  let first: number | undefined
  for (const { expiresAt, status } of requests) {
    if (status === "active" && (first === undefined || expiresAt.getTime() < first)) first = expiresAt.getTime()
  }
  return first
}

/**
 * When a kept answer must go at the latest: the first change time alone makes to its requests, and the end of
 * the hour its photo URLs were signed in, after which they have less than an hour to live (images/SignedUrls.ts).
 */
const changesAtWithUrls = (changesAt: number | undefined, now: number) =>
  Math.min(changesAt ?? Number.POSITIVE_INFINITY, signedUrlsServableUntil(now))

/** Read models of buy requests. */
export class RequestQueries extends Effect.Service<RequestQueries>()("Requests/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const urls = yield* SignedImageUrls
    const firstPhoto = sql.literal(`${requestFirstPhotoColumn("buy_requests.id")} AS "firstPhoto"`)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const searchGate = yield* makeSearchGate(SEARCH_GATE)

    /** The page of `rows`, each item with the thumbnail of its first photo (null without). */
    const pageOf = (rows: ReadonlyArray<PageRow>): Effect.Effect<Paged<ListItem>> =>
      Effect.map(urls.signer, (sign) => ({
        total: rows[0]!.total,
        items:
          rows[0]!.id === null
            ? []
            : rows.map(
                ({ total: _total, n: _n, firstPhoto, ...item }) =>
                  ({
                    ...item,
                    thumbnailUrl: firstPhoto === null ? null : sign(firstPhoto).thumbnail_url
                  }) as ListItem
              )
      }))

    /*
     * Status and offer_count as the API shows them at `at`, before the expiry job writes them down (the rules
     * are migration 0020's functions): lapsed offers no longer count (offers_lapsing makes the subquery a
     * probe of the few offers with a validity). The detail's function (migration 0029) computes the same two.
     */
    const effectiveColumns = (at: Date) => sql`
      talab_request_status(buy_requests.status, buy_requests.expires_at, ${at}) AS status,
      buy_requests.offer_count - (
        SELECT count(*) FROM offers o
        WHERE o.request_id = buy_requests.id AND talab_offer_lapsed(o.status, o.valid_until, ${at})
      )::int AS "offerCount"`

    /*
     * Requests in the state `status` at `at`, the expiry job's lag included. The stored status is compared
     * as well, outside the function, so the lists keep walking the status indexes.
     */
    const inStatus = (status: RequestStatus, at: Date) =>
      status === "active"
        ? sql`status = 'active' AND NOT talab_request_lapsed(status, expires_at, ${at})`
        : status === "expired"
          ? sql`(status = 'expired' OR talab_request_lapsed(status, expires_at, ${at}))`
          : sql`status = ${status}`

    /*
     * Rows are taken as the SQL types them, without a schema pass: the columns' types and CHECK constraints
     * (migrations 0001-0002) and the parsers of db/PgTypes.ts already make them what the row types say, and
     * the response schema encodes them once more on the way out. The pass cost more than the query's own
     * decoding on the hottest reads (docs/SCALING.md, "Where a request's time goes").
     */

    /*
     * Newest first, behind equality filters only, so each list walks one of the indexes of migrations 0002 and
     * 0017: buy_requests_by_status, _by_status_category, _by_status_city, _by_status_category_city, or
     * _by_buyer for one's own. The page's ids are chosen first, from the index alone (an index-only scan
     * where the visibility map allows), and only those rows are read: a deep OFFSET skips index entries, not
     * table rows, so page 500 costs about what page 1 does however large the table grows.
     */
    const newestFirst = sql`created_at DESC, id DESC`

    const page = (
      where: Statement.Fragment,
      request: PageRequest,
      count: Statement.Statement<object>,
      at: Date,
      order: Statement.Fragment = newestFirst
    ): Effect.Effect<Paged<ListItem>> =>
      // One round trip, thumbnails included: the total's single row joined to the page's rows (an empty page leaves one row of nulls).
      // The page's ids keep their order as an array's (WITH ORDINALITY), whatever the order is.
      sql<PageRow>`
        WITH ids AS (
          SELECT id, n FROM unnest(ARRAY(
            SELECT id FROM buy_requests
            WHERE ${where}
            ORDER BY ${order}
            LIMIT ${request.perPage} OFFSET ${offsetOf(request)}
          )) WITH ORDINALITY AS ids (id, n)
        ), page AS (
          SELECT ${sql.literal(storedListColumns)}, ${effectiveColumns(at)}, ${firstPhoto}, ids.n
          FROM ids JOIN buy_requests ON buy_requests.id = ids.id
        )
        SELECT page.*, totals.total FROM (${count}) totals LEFT JOIN page ON true
        ORDER BY page.n`.pipe(Effect.orDie, Effect.flatMap(pageOf))

    /**
     * The words of the vocabulary each query word matches (docs/DECISIONS.md, "Search"), in one statement over
     * the vocabulary's keys, never the requests: the terms its prefix starts (a range of search_terms' key), and
     * the terms one typo away (those equal to one of its deletions, or with it or one of its deletions among
     * their own, in search_term_deletions). Core's `matchOf` then keeps the ones that match.
     */
    const expand = (words: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Expansion>> => {
      const prefixed = words.filter((word) => [...word].length >= PREFIX_MIN_LENGTH)
      const typoed = words.filter((word) => [...word].length >= TYPO_MIN_LENGTH)
      const deletions = typoed.flatMap(deletionsOf)
      const lookups = [
        ...prefixed.map(
          (word) => sql`(SELECT word FROM search_terms WHERE word >= ${word} AND word < ${word} || chr(1114111)
                         ORDER BY word LIMIT ${MAX_PREFIX_EXPANSION})`
        ),
        ...(typoed.length === 0
          ? []
          : [
              sql`SELECT word FROM search_terms WHERE word = ANY(${textArrayLiteral(deletions)}::text[])`,
              sql`SELECT word FROM search_term_deletions
                  WHERE deletion = ANY(${textArrayLiteral([...typoed, ...deletions])}::text[])`
            ])
      ]
      const found =
        lookups.length === 0
          ? Effect.succeed([] as ReadonlyArray<{ word: string }>)
          : sql<{ word: string }>`${sql.join(" UNION ", false)(lookups)}`
      return Effect.map(Effect.orDie(found), (rows) =>
        words.map((word) => {
          const matched = new Set([word])
          const untypoed = new Set([word])
          for (const { word: term } of rows) {
            const match = matchOf(word, term)
            if (match !== undefined) matched.add(term)
            if (match === "exact" || match === "prefix") untypoed.add(term)
          }
          return { word, matched: [...matched], untypoed: [...untypoed] }
        })
      )
    }

    /*
     * Relevance (docs/DECISIONS.md, "Search"): query words found as they are, then found without a typo, then
     * found in the brand or model, then newest. Core's `relevanceOf` is the same rule for one request.
     */
    const relevanceColumns = (expansions: ReadonlyArray<Expansion>) => {
      const sum = (terms: ReadonlyArray<Statement.Fragment>) => sql`(${sql.join(" + ", false)(terms)})`
      return sql`
        ${sum(expansions.map((e) => sql`(search_words @> ARRAY[${e.word}]::text[])::int`))} AS exact,
        ${sum(expansions.map((e) => sql`(search_words && ${textArrayLiteral(e.untypoed)}::text[])::int`))} AS untypoed,
        ${sum(expansions.map((e) => sql`(search_title && ${textArrayLiteral(e.matched)}::text[])::int`))} AS in_title`
    }

    /** The columns a sort needs beside id and created_at, and its ORDER BY over them. */
    const sortOf = (sort: SearchSort, expansions: ReadonlyArray<Expansion>) => {
      switch (sort) {
        case "relevance":
          return expansions.length === 0
            ? { columns: [], order: newestFirst }
            : {
                columns: [relevanceColumns(expansions)],
                order: sql`exact DESC, untypoed DESC, in_title DESC, created_at DESC, id DESC`
              }
        case "newest":
          return { columns: [], order: newestFirst }
        case "budget_desc":
          return { columns: [sql`budget_max`], order: sql`budget_max DESC, created_at DESC, id DESC` }
        case "budget_asc":
          return { columns: [sql`budget_min`], order: sql`budget_min ASC, created_at DESC, id DESC` }
      }
    }

    /*
     * A page of what words or a price find, and their number, from one pass over the rows the GIN index (or the
     * filters' index) hands over: they are read once, with what the sort needs, and both counted and ranked.
     */
    const foundPage = (
      where: Statement.Fragment,
      request: PageRequest,
      at: Date,
      sort: { readonly columns: ReadonlyArray<Statement.Fragment>; readonly order: Statement.Fragment }
    ): Effect.Effect<Paged<ListItem>> =>
      sql<PageRow>`
        WITH hits AS MATERIALIZED (
          SELECT ${sql.join(", ", false)([sql`id`, sql`created_at`, ...sort.columns])} FROM buy_requests WHERE ${where}
        ), ids AS (
          SELECT id, n FROM unnest(ARRAY(
            SELECT id FROM hits ORDER BY ${sort.order} LIMIT ${request.perPage} OFFSET ${offsetOf(request)}
          )) WITH ORDINALITY AS ids (id, n)
        ), page AS (
          SELECT ${sql.literal(storedListColumns)}, ${effectiveColumns(at)}, ${firstPhoto}, ids.n
          FROM ids JOIN buy_requests ON buy_requests.id = ids.id
        )
        SELECT page.*, totals.total FROM (SELECT count(*)::int AS total FROM hits) totals LEFT JOIN page ON true
        ORDER BY page.n`.pipe(Effect.orDie, Effect.flatMap(pageOf))

    /**
     * Everybody's requests in one state, optionally of a category and a city, containing a price, found by words.
     * Without words or price, the total is summed from the counts the triggers of migration 0005 keep (counting
     * the active requests would read most of the table); with words, the requests they find are counted, which
     * the GIN index of migration 0025 hands over (every word must match, so each is one `&&` of the index).
     */
    const list = (filters: RequestFilters, request: PageRequest) =>
      Effect.gen(function* () {
        const at = yield* now
        const query = filters.query ?? []
        const expansions = query.length === 0 ? [] : yield* expand(query)
        const category = filters.category !== undefined ? [sql`category = ${filters.category}`] : []
        const city = filters.locationCity
        const cityFilter = city !== undefined ? [sql`location_city = ${city}`] : []
        const price =
          filters.fitsPrice !== undefined
            ? [sql`budget_min <= ${filters.fitsPrice} AND budget_max >= ${filters.fitsPrice}`]
            : []
        const words = expansions.map((e) => sql`search_words && ${textArrayLiteral(e.matched)}::text[]`)
        const where = sql.and([inStatus(filters.status, at), ...category, ...cityFilter, ...price, ...words])
        const sort = sortOf(filters.sort ?? (query.length > 0 ? "relevance" : "newest"), expansions)
        const cacheable = (result: Paged<ListItem>) =>
          cacheableAnswer({
            tags: [REQUEST_LISTS],
            changesAt: changesAtWithUrls(changesAtOf(result.items), at.getTime())
          })
        if (words.length > 0 || price.length > 0) {
          return yield* searchGate.run(foundPage(where, request, at, sort)).pipe(Effect.tap(cacheable))
        }
        const counted = (status: string) =>
          sql`SELECT COALESCE(SUM(n), 0) FROM buy_request_counts
              WHERE ${sql.and([
                sql`status = ${status}`,
                ...category,
                // '' is the key of "no city", which a city filter never is (the API refuses an empty one)
                ...(city !== undefined ? [sql`location_city_key = ${city}`] : [])
              ])}`
        // Active requests past their expiry that the job has not moved yet (buy_requests_expiring): few.
        const lagging = sql`SELECT count(*) FROM buy_requests
          WHERE ${sql.and([sql`talab_request_lapsed(status, expires_at, ${at})`, ...category, ...cityFilter])}`
        const total =
          filters.status === "active"
            ? sql`SELECT ((${counted("active")}) - (${lagging}))::int AS total`
            : filters.status === "expired"
              ? sql`SELECT ((${counted("expired")}) + (${lagging}))::int AS total`
              : sql`SELECT (${counted(filters.status)})::int AS total`
        return yield* page(where, request, total, at, sort.order).pipe(Effect.tap(cacheable))
      })

    /** The caller's own requests, in every state unless one is asked for; few enough to count. */
    const listMine = (buyerId: string, status: RequestStatus | undefined, request: PageRequest) =>
      Effect.flatMap(now, (at) => {
        const where = sql.and([sql`buyer_id = ${buyerId}`, ...(status !== undefined ? [inStatus(status, at)] : [])])
        return page(where, request, sql`SELECT COUNT(*) AS total FROM buy_requests WHERE ${where}`, at)
      })

    // One function the database plans once per connection (migration 0029): the statement cost more to plan
    // than to run. It answers the request's whole row; the columns shown are chosen here.
    const findDetail = (id: string, at: Date) =>
      Effect.map(
        sql<DetailRow>`
          SELECT ${sql.literal(detailColumns)}, d.status, d.offer_count AS "offerCount", d.photos,
                 d.buyer_name AS "buyerName", d.buyer_deleted AS "buyerDeleted", d.dealt_seller_id AS "dealtSellerId"
          FROM talab_request_detail(${id}, ${at}) d`,
        (rows) => Option.fromNullable(rows[0])
      )

    /**
     * One request with its buyer, for any signed-in user. Its notes read as written by the buyer and by the
     * seller whose offer the buyer accepted; any other reader has their contact details masked.
     */
    const detail = (id: string, viewerId: string): Effect.Effect<typeof RequestDetail.Type, NotFound> =>
      Effect.flatMap(now, (at) => findDetail(id, at)).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new NotFound({ resource: "request" })),
            onSome: ({ buyerId, buyerName, buyerDeleted, dealtSellerId, notes, photos, ...request }) =>
              Effect.gen(function* () {
                const sign = yield* urls.signer
                yield* cacheableAnswer({
                  tags: [requestTag(request.id), userTag(buyerId)],
                  changesAt: changesAtWithUrls(changesAtOf([request]), yield* Clock.currentTimeMillis),
                  fullViewers: dealtSellerId === null ? [buyerId] : [buyerId, dealtSellerId]
                })
                return {
                  ...request,
                  notes: buyerId === viewerId || dealtSellerId === viewerId ? notes : maskedField(notes),
                  buyer: { id: buyerId, name: buyerName, deleted: buyerDeleted },
                  photos: photos.map(sign)
                }
              })
          })
        )
      )

    return { list, listMine, detail } as const
  })
}) {}
