import type { SqlClient } from "@effect/sql"

/**
 * The seller's trust figures (core's `SellerTrust`) as a select list named after its fields, `into.field` with
 * `into` (for `nested`), from `stats` (seller_trust_stats, left joined), `profile` and `user`.
 */
export const trustColumns = (sql: SqlClient.SqlClient, stats: string, profile: string, user: string, into?: string) => {
  const as = (field: string) => `"${into === undefined ? "" : `${into}.`}${field}"`
  return sql.unsafe(`
  ${stats}.median_first_offer_minutes::float8 AS ${as("medianFirstOfferMinutes")},
  ${stats}.median_reply_minutes::float8 AS ${as("medianReplyMinutes")},
  CASE WHEN ${stats}.deals_accepted > 0
    THEN round(${stats}.deals_completed::numeric / ${stats}.deals_accepted, 2)::float8 END AS ${as("completionRate")},
  CASE WHEN ${stats}.deals_accepted > 0
    THEN round(${stats}.deals_cancelled::numeric / ${stats}.deals_accepted, 2)::float8 END AS ${as("cancellationRate")},
  CASE WHEN ${profile}.rating_count > 0 THEN ${profile}.rating_avg::float8 END AS ${as("ratingAvg")},
  ${profile}.rating_count AS ${as("ratingCount")},
  COALESCE(${stats}.deals_completed, 0) AS ${as("completedDeals")},
  ${user}.created_at AS ${as("memberSince")}`)
}
