import { SqlClient, SqlSchema } from "@effect/sql"
import type { PendingSellerProfile } from "@talab/contract"
import { type SellerTrust } from "@talab/contract"
import { SellerProfileStatus } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"
import { TrustRow, trustColumns, trustOf } from "../trust/View.js"

const PendingRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  status: SellerProfileStatus,
  business_name: Schema.String,
  location_district: Schema.String,
  location_city: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  rating_avg: Schema.Number,
  rating_count: Schema.Number,
  created_at: Schema.DateFromSelf,
  user_phone_number: Schema.String,
  user_name: Schema.NullOr(Schema.String)
})

const Total = Schema.Struct({ total: Schema.Number })

/** Read models of seller profiles. */
export class SellerProfileQueries extends Effect.Service<SellerProfileQueries>()("SellerProfiles/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Walks seller_profiles_by_status (status, created_at DESC, id DESC).
    const pendingPage = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Number, offset: Schema.Number }),
      Result: PendingRow,
      execute: ({ limit, offset }) => sql`
        SELECT p.id, p.user_id, p.status, p.business_name, p.location_district, p.location_city, p.bio,
               p.rating_avg, p.rating_count, p.created_at, u.phone_number AS user_phone_number, u.name AS user_name
        FROM seller_profiles p
        JOIN users u ON u.id = p.user_id
        WHERE p.status = 'pending'
        ORDER BY p.created_at DESC, p.id DESC
        LIMIT ${limit} OFFSET ${offset}`
    })
    const pendingTotal = SqlSchema.single({
      Request: Schema.Void,
      Result: Total,
      execute: () => sql`SELECT COUNT(*) AS total FROM seller_profiles WHERE status = 'pending'`
    })

    /** Applications waiting for review, newest first. */
    const listPending = (page: PageRequest): Effect.Effect<Paged<typeof PendingSellerProfile.Type>> =>
      rowsAndTotal(pendingPage({ limit: page.perPage, offset: offsetOf(page) }), pendingTotal(undefined)).pipe(
        Effect.map(({ rows, total }) => ({
          total: total.total,
          items: rows.map(({ user_phone_number, user_name, ...profile }) => ({
            ...profile,
            user: { id: profile.user_id, phone_number: user_phone_number, name: user_name }
          }))
        })),
        Effect.orDie
      )

    // One row by primary key of each table: the figures are kept by the writes (migration 0015).
    const trustRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct(TrustRow),
      execute: (userId) => sql`
        SELECT ${trustColumns(sql, "t", "p", "u")}
        FROM seller_profiles p
        JOIN users u ON u.id = p.user_id
        LEFT JOIN seller_trust_stats t ON t.seller_user_id = p.user_id
        WHERE p.user_id = ${userId}`
    })

    /** The trust figures of the seller whose user is `userId`, if they have a profile. */
    const trustOfSeller = (userId: string): Effect.Effect<Option.Option<typeof SellerTrust.Type>> =>
      trustRow(userId).pipe(Effect.map(Option.map(trustOf)), Effect.orDie)

    return { listPending, trustOfSeller } as const
  })
}) {}
