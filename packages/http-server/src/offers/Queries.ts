import { SqlClient, SqlSchema } from "@effect/sql"
import { CounterOnOffer, MyOfferItem, type OfferSort, Party, RequestOfferItem } from "@talab/contract"
import { OfferStatus, type OffersAudience } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"
import { trustColumns } from "../trust/View.js"

/** An offer of a request with its seller, as `nested` gathers the row: the list item as handlers return it. */
const RequestOfferRow = Schema.typeSchema(RequestOfferItem.omit("photos"))

// The counter on the table: the last one of the offer's current revision (`k`, joined by `counterOnTheTable`).
const counterColumns = columnsAs("k", fieldNames(CounterOnOffer), "counter")

// The status is the effective one (below); the rest is read as stored.
const requestOfferColumns = [
  columnsAs("o", fieldNames(RequestOfferItem, "seller", "status", "counter", "photos")),
  counterColumns,
  columnsAs("u", fieldNames(Party), "seller"),
  columnsAs("p", fieldNames(RequestOfferItem.fields.seller, ...fieldNames(Party), "trust"), "seller")
].join(", ")

/** One of the seller's own offers with the request it answers, as `nested` gathers the row. */
const MyOfferRow = Schema.typeSchema(MyOfferItem.omit("photos"))

const myOfferColumns = [
  columnsAs("o", fieldNames(MyOfferItem, "request", "status", "counter", "photos")),
  counterColumns,
  columnsAs("r", fieldNames(MyOfferItem.fields.request), "request")
].join(", ")

const Total = Schema.Struct({ total: Schema.Number })

/** Read models of offers. */
export class OfferQueries extends Effect.Service<OfferQueries>()("Offers/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    // The status as the API shows it at `at`, before the expiry job writes it down. `o` is the offer, `r` its request.
    const effectiveStatus = (at: Date) =>
      sql`talab_offer_status(o.status, o.valid_until, r.status, r.expires_at, ${at})`

    // offer_counters_by_offer (offer_id, revision, position DESC): one row per offer.
    const counterOnTheTable = sql`
        LEFT JOIN LATERAL (
          SELECT c.price, c.note, c.created_at FROM offer_counters c
          WHERE c.offer_id = o.id AND c.revision = o.revision ORDER BY c.position DESC LIMIT 1
        ) k ON true`

    // The key of each order before the default one; a seller without the figure sorts last.
    const orderKey = (sort: OfferSort) => {
      switch (sort) {
        case "newest":
          return sql``
        case "price":
          return sql`o.price ASC, `
        case "rating":
          return sql`CASE WHEN p.rating_count > 0 THEN p.rating_avg END DESC NULLS LAST, `
        case "response_time":
          return sql`t.median_reply_minutes ASC NULLS LAST, `
      }
    }

    // offers_by_request (request_id, created_at DESC, id DESC), narrowed to what the audience may see; a
    // request has few offers, so another order is a sort of those rows, with each seller's figures by key.
    const forRequest = SqlSchema.findAll({
      Request: Schema.Struct({
        requestId: Schema.String,
        sellerId: Schema.NullOr(Schema.String),
        sort: Schema.Literal("newest", "price", "rating", "response_time"),
        now: Schema.DateFromSelf
      }),
      Result: RequestOfferRow,
      execute: ({ requestId, sellerId, sort, now }) =>
        sql<Record<string, unknown>>`
        SELECT ${sql.literal(requestOfferColumns)}, ${effectiveStatus(now)} AS status,
               ${trustColumns(sql, "t", "p", "u", "seller.trust")}
        FROM offers o
        JOIN buy_requests r ON r.id = o.request_id
        JOIN users u ON u.id = o.seller_id
        JOIN seller_profiles p ON p.user_id = o.seller_id
        LEFT JOIN seller_trust_stats t ON t.seller_user_id = o.seller_id${counterOnTheTable}
        WHERE o.request_id = ${requestId}
          AND ${sellerId === null ? sql`o.status <> 'withdrawn'` : sql`o.seller_id = ${sellerId}`}
        ORDER BY ${orderKey(sort)}o.created_at DESC, o.id DESC`.pipe(Effect.map((rows) => rows.map(nested)))
    })

    /** The offers of a request the audience may see, in the order asked for (newest first by default). */
    const listForRequest = (
      requestId: string,
      audience: OffersAudience,
      sort: OfferSort = "newest"
    ): Effect.Effect<ReadonlyArray<Omit<typeof RequestOfferItem.Type, "photos">>> =>
      Effect.flatMap(now, (at) =>
        forRequest({ requestId, sellerId: audience._tag === "Seller" ? audience.sellerId : null, sort, now: at })
      ).pipe(Effect.orDie)

    // offers_by_seller (seller_id, created_at DESC, id DESC); a status is a residual filter.
    const minePage = SqlSchema.findAll({
      Request: Schema.Struct({
        sellerId: Schema.String,
        status: Schema.NullOr(OfferStatus),
        limit: Schema.Number,
        offset: Schema.Number,
        now: Schema.DateFromSelf
      }),
      Result: MyOfferRow,
      execute: ({ sellerId, status, limit, offset, now }) =>
        sql<Record<string, unknown>>`
        SELECT ${sql.literal(myOfferColumns)}, ${effectiveStatus(now)} AS status
        FROM offers o
        JOIN buy_requests r ON r.id = o.request_id${counterOnTheTable}
        WHERE o.seller_id = ${sellerId}${status === null ? sql`` : sql` AND ${effectiveStatus(now)} = ${status}`}
        ORDER BY o.created_at DESC, o.id DESC
        LIMIT ${limit} OFFSET ${offset}`.pipe(Effect.map((rows) => rows.map(nested)))
    })
    const mineTotal = SqlSchema.single({
      Request: Schema.Struct({ sellerId: Schema.String, status: Schema.NullOr(OfferStatus), now: Schema.DateFromSelf }),
      Result: Total,
      execute: ({ sellerId, status, now }) =>
        status === null
          ? sql`SELECT COUNT(*) AS total FROM offers WHERE seller_id = ${sellerId}`
          : sql`
        SELECT COUNT(*) AS total FROM offers o JOIN buy_requests r ON r.id = o.request_id
        WHERE o.seller_id = ${sellerId} AND ${effectiveStatus(now)} = ${status}`
    })

    /** The caller's own offers, in every state unless one is asked for. */
    const listMine = (
      sellerId: string,
      status: OfferStatus | undefined,
      page: PageRequest
    ): Effect.Effect<Paged<Omit<typeof MyOfferItem.Type, "photos">>> =>
      Effect.flatMap(now, (at) =>
        rowsAndTotal(
          minePage({ sellerId, status: status ?? null, limit: page.perPage, offset: offsetOf(page), now: at }),
          mineTotal({ sellerId, status: status ?? null, now: at })
        )
      ).pipe(
        Effect.map(({ rows, total }) => ({ total: total.total, items: rows })),
        Effect.orDie
      )

    return { listForRequest, listMine } as const
  })
}) {}
