import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import type { AdminUser } from "@talab/contract"
import { SellerProfile, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"

/** A user as an admin sees them, as `nested` gathers the row. */
const AdminUserRow = Schema.Struct({
  ...User.omit("phoneNumber").fields,
  phoneNumber: Schema.NullOr(User.fields.phoneNumber),
  deleted: Schema.Boolean,
  sellerProfile: Schema.NullOr(SellerProfile),
  counts: Schema.Struct({
    requests: Schema.Number,
    offers: Schema.Number,
    deals: Schema.Number,
    reportsMade: Schema.Number,
    reportsReceived: Schema.Number
  })
})

const userColumns = [
  columnsAs("u", fieldNames(AdminUserRow, "sellerProfile", "counts")),
  columnsAs("sp", fieldNames(SellerProfile), "sellerProfile")
].join(", ")

/** Looking users up for the admin: by id or by exact number, with their counts. */
export class AdminUserQueries extends Effect.Service<AdminUserQueries>()("Users/AdminQueries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const byCondition = (condition: (key: string) => Statement.Statement<unknown>) =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: AdminUserRow,
        execute: (key) =>
          sql<Record<string, unknown>>`
            SELECT ${sql.literal(userColumns)},
              (SELECT COUNT(*)::int FROM buy_requests r WHERE r.buyer_id = u.id) AS "counts.requests",
              (SELECT COUNT(*)::int FROM offers o WHERE o.seller_id = u.id) AS "counts.offers",
              (SELECT COUNT(*)::int FROM deals d WHERE d.buyer_id = u.id OR d.seller_id = u.id) AS "counts.deals",
              (SELECT COUNT(*)::int FROM reports x WHERE x.reporter_id = u.id) AS "counts.reportsMade",
              (SELECT COUNT(*)::int FROM reports x WHERE x.reported_user_id = u.id) AS "counts.reportsReceived"
            FROM users u
            LEFT JOIN seller_profiles sp ON sp.user_id = u.id
            WHERE ${condition(key)}`.pipe(Effect.map((rows) => rows.map(nested)))
      })

    const byId = byCondition((id) => sql`u.id = ${id}`)
    const byPhone = byCondition((phone) => sql`u.phone_number = ${phone}`)

    // Counts are named in camelCase by the query and in snake_case by the view.
    const asView = (row: typeof AdminUserRow.Type): typeof AdminUser.Type => ({
      ...row,
      counts: {
        requests: row.counts.requests,
        offers: row.counts.offers,
        deals: row.counts.deals,
        reports_made: row.counts.reportsMade,
        reports_received: row.counts.reportsReceived
      }
    })

    return {
      byId: (id: string): Effect.Effect<Option.Option<typeof AdminUser.Type>> =>
        byId(id).pipe(
          Effect.map((row) => Option.map(row, asView)),
          Effect.orDie
        ),
      byPhone: (phone: string): Effect.Effect<Option.Option<typeof AdminUser.Type>> =>
        byPhone(phone).pipe(
          Effect.map((row) => Option.map(row, asView)),
          Effect.orDie
        )
    } as const
  })
}) {}
