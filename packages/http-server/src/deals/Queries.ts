import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import type { DealDetail, DealListItem, DealRole } from "@talab/contract"
import { Category, DealStatus, OfferStatus } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"

const Nullable = Schema.NullOr(Schema.String)

const ListRow = Schema.Struct({
  id: Schema.String,
  status: DealStatus,
  created_at: Schema.DateFromSelf,
  request_id: Schema.String,
  product_brand: Nullable,
  product_model: Nullable,
  offer_id: Schema.String,
  price: Schema.Number,
  buyer_id: Schema.String,
  buyer_name: Nullable,
  seller_id: Schema.String,
  seller_name: Nullable,
  seller_rating_avg: Schema.Number
})

const DetailRow = Schema.Struct({
  ...ListRow.fields,
  conversation_id: Schema.String,
  completed_at: Schema.NullOr(Schema.DateFromSelf),
  cancelled_at: Schema.NullOr(Schema.DateFromSelf),
  cancel_reason: Nullable,
  cancel_description: Nullable,
  category: Category,
  budget_min: Schema.Number,
  budget_max: Schema.Number,
  location_district: Schema.String,
  location_city: Nullable,
  availability: Schema.String,
  condition_notes: Nullable,
  warranty_notes: Nullable,
  offer_status: OfferStatus,
  seller_rating_count: Schema.Number
})

const Total = Schema.Struct({ total: Schema.Number })

export type DealDetailView = typeof DealDetail.Type & { readonly buyerId: string; readonly sellerId: string }

/** Read models of deals. */
export class DealQueries extends Effect.Service<DealQueries>()("Deals/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const withStatus = (status: DealStatus | undefined) => (status === undefined ? sql`` : sql` AND status = ${status}`)

    /*
     * One side of the caller's deals, newest first, from deals_by_buyer or deals_by_seller. Without a
     * role both sides are merged (a user is never both parties of one deal), each capped at what the
     * page can need, so no side is sorted in full.
     */
    const side = (column: "buyer_id" | "seller_id", userId: string, status: DealStatus | undefined, cap: number) => sql`
      (SELECT id FROM deals WHERE ${sql(column)} = ${userId}${withStatus(status)}
       ORDER BY created_at DESC, id DESC LIMIT ${cap})`

    const sides = (role: DealRole | undefined): ReadonlyArray<"buyer_id" | "seller_id"> =>
      role === "buyer" ? ["buyer_id"] : role === "seller" ? ["seller_id"] : ["buyer_id", "seller_id"]

    const pageRows = (
      userId: string,
      role: DealRole | undefined,
      status: DealStatus | undefined,
      page: PageRequest
    ) => {
      const offset = offsetOf(page)
      const ids: Statement.Fragment = sql.join(
        " UNION ALL ",
        false
      )(sides(role).map((column) => side(column, userId, status, offset + page.perPage)))
      return SqlSchema.findAll({
        Request: Schema.Void,
        Result: ListRow,
        execute: () => sql`
          SELECT d.id, d.status, d.created_at, d.request_id, r.product_brand, r.product_model, d.offer_id, o.price,
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
          LIMIT ${page.perPage} OFFSET ${offset}`
      })(undefined)
    }

    const total = (userId: string, role: DealRole | undefined, status: DealStatus | undefined) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Total,
        execute: () =>
          sql`SELECT ${sql.join(
            " + ",
            false
          )(
            sides(role).map(
              (column) => sql`(SELECT COUNT(*) FROM deals WHERE ${sql(column)} = ${userId}${withStatus(status)})`
            )
          )} AS total`
      })(undefined)

    /** The caller's deals as buyer, as seller, or both; in every state unless one is asked for. */
    const listMine = (
      userId: string,
      filters: { readonly role?: DealRole | undefined; readonly status?: DealStatus | undefined },
      page: PageRequest
    ): Effect.Effect<Paged<typeof DealListItem.Type>> =>
      rowsAndTotal(
        pageRows(userId, filters.role, filters.status, page),
        total(userId, filters.role, filters.status)
      ).pipe(
        Effect.map(({ rows, total }) => ({
          total: total.total,
          items: rows.map((row) => ({
            id: row.id,
            status: row.status,
            created_at: row.created_at,
            request: { id: row.request_id, product_brand: row.product_brand, product_model: row.product_model },
            offer: { id: row.offer_id, price: row.price },
            buyer: { id: row.buyer_id, name: row.buyer_name },
            seller: { id: row.seller_id, name: row.seller_name, rating_avg: row.seller_rating_avg }
          }))
        })),
        Effect.orDie
      )

    const findDetail = SqlSchema.findOne({
      Request: Schema.String,
      Result: DetailRow,
      execute: (id) => sql`
        SELECT d.id, d.status, d.created_at, d.completed_at, d.cancelled_at, d.cancel_reason, d.cancel_description,
               d.conversation_id,
               d.request_id, r.category, r.product_brand, r.product_model, r.budget_min, r.budget_max,
               r.location_district, r.location_city,
               d.offer_id, o.price, o.availability, o.condition_notes, o.warranty_notes, o.status AS offer_status,
               d.buyer_id, b.name AS buyer_name, d.seller_id, s.name AS seller_name,
               COALESCE(p.rating_avg, 0) AS seller_rating_avg, COALESCE(p.rating_count, 0) AS seller_rating_count
        FROM deals d
        JOIN buy_requests r ON r.id = d.request_id
        JOIN offers o ON o.id = d.offer_id
        JOIN users b ON b.id = d.buyer_id
        JOIN users s ON s.id = d.seller_id
        LEFT JOIN seller_profiles p ON p.user_id = d.seller_id
        WHERE d.id = ${id}`
    })

    /** One deal with its request, offer and parties (ids kept aside for the policy). */
    const detail = (id: string): Effect.Effect<Option.Option<DealDetailView>> =>
      findDetail(id).pipe(
        Effect.map(
          Option.map((row) => ({
            buyerId: row.buyer_id,
            sellerId: row.seller_id,
            id: row.id,
            status: row.status,
            conversation_id: row.conversation_id,
            created_at: row.created_at,
            completed_at: row.completed_at,
            cancelled_at: row.cancelled_at,
            cancel_reason: row.cancel_reason,
            cancel_description: row.cancel_description,
            request: {
              id: row.request_id,
              category: row.category,
              product_brand: row.product_brand,
              product_model: row.product_model,
              budget_min: row.budget_min,
              budget_max: row.budget_max,
              location_district: row.location_district,
              location_city: row.location_city
            },
            offer: {
              id: row.offer_id,
              price: row.price,
              availability: row.availability,
              condition_notes: row.condition_notes,
              warranty_notes: row.warranty_notes,
              status: row.offer_status
            },
            buyer: { id: row.buyer_id, name: row.buyer_name },
            seller: {
              id: row.seller_id,
              name: row.seller_name,
              rating_avg: row.seller_rating_avg,
              rating_count: row.seller_rating_count
            }
          }))
        ),
        Effect.orDie
      )

    return { listMine, detail } as const
  })
}) {}
