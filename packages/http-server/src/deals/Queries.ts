import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { DealDetail, DealListItem, type DealRole } from "@talab/contract"
import { type DealStatus, snakeCase } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"

type ListItem = typeof DealListItem.Type

/** The deal's columns and its neighbours' for `view`, named for `nested`; the seller's figures are the profile's. */
const columnsFor = (view: typeof DealListItem | typeof DealDetail) => {
  const { request, offer, buyer, seller } = view.fields
  return [
    columnsAs("d", fieldNames(view, "request", "offer", "buyer", "seller")),
    columnsAs("r", fieldNames(request), "request"),
    // The offer's photos are not its columns: the service adds them (images/Attached.ts).
    columnsAs("o", fieldNames(offer, "photos"), "offer"),
    columnsAs("b", fieldNames(buyer), "buyer"),
    columnsAs("s", fieldNames(seller, "ratingAvg", "ratingCount"), "seller"),
    fieldNames(seller, "id", "name", "deleted")
      .map((figure) => `COALESCE(p.${snakeCase(figure)}, 0) AS "seller.${figure}"`)
      .join(", ")
  ].join(", ")
}

const listColumns = columnsFor(DealListItem)
const detailColumns = columnsFor(DealDetail)

const Total = Schema.Struct({ total: Schema.Number })

type DealDetailView = Omit<typeof DealDetail.Type, "offer"> & {
  readonly offer: Omit<(typeof DealDetail.Type)["offer"], "photos">
} & { readonly buyerId: string; readonly sellerId: string }

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
      // Rows are taken as the SQL types them (see requests/Queries.ts), named for the view by `columnsAs`.
      return sql<Record<string, unknown>>`
          SELECT ${sql.literal(listColumns)}
          FROM deals d
          JOIN buy_requests r ON r.id = d.request_id
          JOIN offers o ON o.id = d.offer_id
          JOIN users b ON b.id = d.buyer_id
          JOIN users s ON s.id = d.seller_id
          LEFT JOIN seller_profiles p ON p.user_id = d.seller_id
          WHERE d.id IN (${ids})
          ORDER BY d.created_at DESC, d.id DESC
          LIMIT ${page.perPage} OFFSET ${offset}`.pipe(Effect.map((rows) => rows.map(nested<ListItem>)))
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
        Effect.map(({ rows, total }) => ({ total: total.total, items: rows })),
        Effect.orDie
      )

    const findDetail = (id: string) =>
      sql<Record<string, unknown>>`
        SELECT ${sql.literal(detailColumns)}
        FROM deals d
        JOIN buy_requests r ON r.id = d.request_id
        JOIN offers o ON o.id = d.offer_id
        JOIN users b ON b.id = d.buyer_id
        JOIN users s ON s.id = d.seller_id
        LEFT JOIN seller_profiles p ON p.user_id = d.seller_id
        WHERE d.id = ${id}`

    /** One deal with its request, offer and parties (ids kept aside for the policy). */
    const detail = (id: string): Effect.Effect<Option.Option<DealDetailView>> =>
      findDetail(id).pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => {
            const view = nested<DealDetailView>(row)
            return { ...view, buyerId: view.buyer.id, sellerId: view.seller.id }
          })
        ),
        Effect.orDie
      )

    return { listMine, detail } as const
  })
}) {}
