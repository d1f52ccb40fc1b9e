import { SqlClient, type Statement } from "@effect/sql"
import { RequestDetail, RequestListItem } from "@talab/contract"
import { type Category, maskedField, NotFound, type RequestStatus } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { columnsAs, fieldNames } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest } from "../http/Paging.js"

type ListItem = typeof RequestListItem.Type

/** A row of a page with the list's total beside it; an empty page is one row of nulls with the total. */
type PageRow = { readonly [K in keyof ListItem]: ListItem[K] | null } & { readonly total: number }

type DetailRow = Omit<typeof RequestDetail.Type, "buyer"> & {
  readonly buyerId: string
  readonly buyerName: string | null
  readonly buyerDeleted: boolean
  /** The viewer is the seller of the request's accepted offer. */
  readonly dealt: boolean
}

export interface RequestFilters {
  readonly status: RequestStatus
  readonly category?: Category | undefined
  readonly locationCity?: string | undefined
}

// Status and offer_count are the effective ones (below); the rest is read as stored.
const storedListColumns = columnsAs("buy_requests", fieldNames(RequestListItem, "status", "offerCount"))

const storedDetailColumns = columnsAs("buy_requests", [
  ...fieldNames(RequestDetail, "buyer", "status", "offerCount"),
  "buyerId"
])

/** Read models of buy requests. */
export class RequestQueries extends Effect.Service<RequestQueries>()("Requests/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /*
     * Status and offer_count as the API shows them at `at`, before the expiry job writes them down (the rules
     * are migration 0020's functions): lapsed offers no longer count (offers_lapsing makes the subquery a
     * probe of the few offers with a validity).
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
    const page = (
      where: Statement.Fragment,
      request: PageRequest,
      count: Statement.Statement<object>,
      at: Date
    ): Effect.Effect<Paged<ListItem>> =>
      // One round trip: the total's single row joined to the page's rows (an empty page leaves one row of nulls).
      sql<PageRow>`
        WITH page AS (
          SELECT ${sql.literal(storedListColumns)}, ${effectiveColumns(at)} FROM buy_requests
          WHERE id IN (
            SELECT id FROM buy_requests
            WHERE ${where}
            ORDER BY created_at DESC, id DESC
            LIMIT ${request.perPage} OFFSET ${offsetOf(request)}
          )
        )
        SELECT page.*, totals.total FROM (${count}) totals LEFT JOIN page ON true
        ORDER BY page."createdAt" DESC, page.id DESC`.pipe(
        Effect.map((rows) => ({
          total: rows[0]!.total,
          items: rows[0]!.id === null ? [] : rows.map(({ total: _total, ...item }) => item as ListItem)
        })),
        Effect.orDie
      )

    /**
     * Everybody's requests in one state, optionally of a category and a city. The total is summed from the
     * counts the triggers of migration 0005 keep (counting the active requests would read most of the table).
     */
    const list = (filters: RequestFilters, request: PageRequest) =>
      Effect.flatMap(now, (at) => {
        const category = filters.category !== undefined ? [sql`category = ${filters.category}`] : []
        const city = filters.locationCity
        const cityFilter = city !== undefined ? [sql`location_city = ${city}`] : []
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
        return page(sql.and([inStatus(filters.status, at), ...category, ...cityFilter]), request, total, at)
      })

    /** The caller's own requests, in every state unless one is asked for; few enough to count. */
    const listMine = (buyerId: string, status: RequestStatus | undefined, request: PageRequest) =>
      Effect.flatMap(now, (at) => {
        const where = sql.and([sql`buyer_id = ${buyerId}`, ...(status !== undefined ? [inStatus(status, at)] : [])])
        return page(where, request, sql`SELECT COUNT(*) AS total FROM buy_requests WHERE ${where}`, at)
      })

    const findDetail = (id: string, viewerId: string, at: Date) =>
      Effect.map(
        sql<DetailRow>`
          SELECT ${sql.literal(storedDetailColumns)}, ${effectiveColumns(at)}, u.name AS "buyerName", u.deleted AS "buyerDeleted",
                 EXISTS (SELECT 1 FROM offers o WHERE o.request_id = buy_requests.id AND o.seller_id = ${viewerId}
                         AND o.status = 'accepted') AS dealt
          FROM buy_requests
          JOIN users u ON u.id = buy_requests.buyer_id
          WHERE buy_requests.id = ${id}`,
        (rows) => Option.fromNullable(rows[0])
      )

    /**
     * One request with its buyer, for any signed-in user. Its notes read as written by the buyer and by the
     * seller whose offer the buyer accepted; any other reader has their contact details masked.
     */
    const detail = (id: string, viewerId: string): Effect.Effect<typeof RequestDetail.Type, NotFound> =>
      Effect.flatMap(now, (at) => findDetail(id, viewerId, at)).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new NotFound({ resource: "request" })),
            onSome: ({ buyerId, buyerName, buyerDeleted, dealt, notes, ...request }) =>
              Effect.succeed({
                ...request,
                notes: buyerId === viewerId || dealt ? notes : maskedField(notes),
                buyer: { id: buyerId, name: buyerName, deleted: buyerDeleted }
              })
          })
        )
      )

    return { list, listMine, detail } as const
  })
}) {}
