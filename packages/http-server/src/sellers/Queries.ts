import { SqlClient, SqlSchema } from "@effect/sql"
import type { PendingSellerProfile } from "@talab/contract"
import { SellerProfile, SellerTrust, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"
import { trustColumns } from "../trust/View.js"

/** An application with its applicant, as `nested` gathers the row. */
const PendingRow = Schema.Struct({
  ...SellerProfile.omit("approvedAt").fields,
  user: User.pick("id", "phoneNumber", "name")
})

const pendingColumns = [
  columnsAs("p", fieldNames(PendingRow, "user")),
  columnsAs("u", fieldNames(PendingRow.fields.user), "user")
].join(", ")

const Total = Schema.Struct({ total: Schema.Number })

/** Read models of seller profiles. */
export class SellerProfileQueries extends Effect.Service<SellerProfileQueries>()("SellerProfiles/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Walks seller_profiles_by_status (status, created_at DESC, id DESC).
    const pendingPage = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Number, offset: Schema.Number }),
      Result: PendingRow,
      execute: ({ limit, offset }) =>
        sql<Record<string, unknown>>`
        SELECT ${sql.literal(pendingColumns)}
        FROM seller_profiles p
        JOIN users u ON u.id = p.user_id
        WHERE p.status = 'pending' AND NOT u.deleted
        ORDER BY p.created_at DESC, p.id DESC
        LIMIT ${limit} OFFSET ${offset}`.pipe(Effect.map((rows) => rows.map(nested)))
    })
    const pendingTotal = SqlSchema.single({
      Request: Schema.Void,
      Result: Total,
      execute: () => sql`
        SELECT COUNT(*) AS total FROM seller_profiles p JOIN users u ON u.id = p.user_id
        WHERE p.status = 'pending' AND NOT u.deleted`
    })

    /** Applications waiting for review, newest first. */
    const listPending = (page: PageRequest): Effect.Effect<Paged<typeof PendingSellerProfile.Type>> =>
      rowsAndTotal(pendingPage({ limit: page.perPage, offset: offsetOf(page) }), pendingTotal(undefined)).pipe(
        Effect.map(({ rows, total }) => ({ total: total.total, items: rows })),
        Effect.orDie
      )

    // One row by primary key of each table: the figures are kept by the writes (migration 0015).
    const trustRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: SellerTrust,
      execute: (userId) => sql`
        SELECT ${trustColumns(sql, "t", "p", "u")}
        FROM seller_profiles p
        JOIN users u ON u.id = p.user_id
        LEFT JOIN seller_trust_stats t ON t.seller_user_id = p.user_id
        WHERE p.user_id = ${userId}`
    })

    /** The trust figures of the seller whose user is `userId`, if they have a profile. */
    const trustOfSeller = (userId: string): Effect.Effect<Option.Option<SellerTrust>> =>
      trustRow(userId).pipe(Effect.orDie)

    return { listPending, trustOfSeller } as const
  })
}) {}
