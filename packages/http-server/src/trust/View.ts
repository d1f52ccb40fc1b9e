import type { SqlClient } from "@effect/sql"
import type { SellerTrust } from "@talab/contract"
import * as Schema from "effect/Schema"

/** The columns `trustOf` reads, named `trust_*`, from `stats` (seller_trust_stats, left joined), `p`, `u`. */
export const trustColumns = (sql: SqlClient.SqlClient, stats: string, profile: string, user: string) =>
  sql.unsafe(`
  ${stats}.median_first_offer_minutes::float8 AS trust_median_first_offer_minutes,
  ${stats}.median_reply_minutes::float8 AS trust_median_reply_minutes,
  CASE WHEN ${stats}.deals_accepted > 0
    THEN round(${stats}.deals_completed::numeric / ${stats}.deals_accepted, 2)::float8 END AS trust_completion_rate,
  CASE WHEN ${stats}.deals_accepted > 0
    THEN round(${stats}.deals_cancelled::numeric / ${stats}.deals_accepted, 2)::float8 END AS trust_cancellation_rate,
  CASE WHEN ${profile}.rating_count > 0 THEN ${profile}.rating_avg::float8 END AS trust_rating_avg,
  ${profile}.rating_count AS trust_rating_count,
  COALESCE(${stats}.deals_completed, 0) AS trust_completed_deals,
  ${user}.created_at AS trust_member_since`)

export const TrustRow = {
  trust_median_first_offer_minutes: Schema.NullOr(Schema.Number),
  trust_median_reply_minutes: Schema.NullOr(Schema.Number),
  trust_completion_rate: Schema.NullOr(Schema.Number),
  trust_cancellation_rate: Schema.NullOr(Schema.Number),
  trust_rating_avg: Schema.NullOr(Schema.Number),
  trust_rating_count: Schema.Number,
  trust_completed_deals: Schema.Number,
  trust_member_since: Schema.DateFromSelf
}

type TrustFields = { readonly [K in keyof typeof TrustRow]: Schema.Schema.Type<(typeof TrustRow)[K]> }

export const trustOf = (row: TrustFields): typeof SellerTrust.Type => ({
  median_first_offer_minutes: row.trust_median_first_offer_minutes,
  median_reply_minutes: row.trust_median_reply_minutes,
  completion_rate: row.trust_completion_rate,
  cancellation_rate: row.trust_cancellation_rate,
  rating_avg: row.trust_rating_avg,
  rating_count: row.trust_rating_count,
  completed_deals: row.trust_completed_deals,
  member_since: row.trust_member_since
})
