import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Bounds on what one user can send another (docs/DECISIONS.md, "Spam bounds").
 *
 * - reports_one_pending_per_reporter: one pending report per reporter, reported user and deal; NULLS NOT
 *   DISTINCT, so two reports without a deal are about the same (no) deal. It is the arbiter of the insert's
 *   ON CONFLICT, so racing reports settle on one. Pending duplicates filed before it are dismissed first, the
 *   oldest of each kept, with a note saying so (the admins lose nothing: the kept one is the same complaint).
 * - notifications.collapse_key: a push with a key is queued at most once an hour per recipient and key
 *   (`offer_created` keyed by request and seller); notifications_collapsing finds the last one.
 * - notifications_alerts_by_user: the `request_match` and summary pushes a seller got in the last hour, which
 *   the alert matcher counts against the hourly limit.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    WITH ranked AS (
      SELECT id, row_number() OVER (
        PARTITION BY reporter_id, reported_user_id, deal_id ORDER BY created_at, id
      ) AS nth
      FROM reports WHERE status = 'pending'
    )
    UPDATE reports
    SET status = 'dismissed', action = 'dismiss', resolved_at = now(),
        resolution_notes = 'Dismissed automatically: a duplicate of an earlier pending report by the same reporter'
    FROM ranked WHERE reports.id = ranked.id AND ranked.nth > 1;

    CREATE UNIQUE INDEX reports_one_pending_per_reporter ON reports (reporter_id, reported_user_id, deal_id)
      NULLS NOT DISTINCT WHERE status = 'pending';

    ALTER TABLE notifications ADD COLUMN collapse_key text;
    CREATE INDEX notifications_collapsing ON notifications (user_id, collapse_key, created_at)
      WHERE collapse_key IS NOT NULL;
    CREATE INDEX notifications_alerts_by_user ON notifications (user_id, created_at)
      WHERE type IN ('request_match', 'request_match_summary');
  `
)
