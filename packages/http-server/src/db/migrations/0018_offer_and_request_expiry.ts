import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Offer validity and request expiry (docs/DECISIONS.md, "Offer validity and request expiry").
 *
 * - offers.valid_until: past it a pending offer is `expired` (the API says so from the clock at once; the expiry
 *   job writes it down). offers_lapsing finds the pending offers with a validity for the job.
 * - buy_requests.expires_at: created_at + REQUEST_TTL_DAYS (existing rows: 30 days after creation, or a day
 *   after this migration for those older than that, so nobody's open request vanishes without its reminder);
 *   extended_at (once), reminded_at (the reminder push was queued). buy_requests_expiring serves the job's
 *   scans and the exact active/expired lists before the job runs.
 * - The status sets gain `expired`; the notification types gain `request_expiring` and `request_expired`. The
 *   type check is rewritten from its current definition rather than restated, so types other migrations
 *   added to it (seller alerts) stay allowed whatever order they were written in.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE offers ADD COLUMN valid_until timestamptz;
    ALTER TABLE offers DROP CONSTRAINT offers_status_known;
    ALTER TABLE offers ADD CONSTRAINT offers_status_known
      CHECK (status IN ('pending', 'accepted', 'rejected', 'withdrawn', 'expired'));
    CREATE INDEX offers_lapsing ON offers (valid_until) WHERE status = 'pending' AND valid_until IS NOT NULL;

    ALTER TABLE buy_requests ADD COLUMN expires_at timestamptz;
    UPDATE buy_requests SET expires_at = GREATEST(created_at + interval '30 days', now() + interval '1 day');
    ALTER TABLE buy_requests ALTER COLUMN expires_at SET NOT NULL;
    ALTER TABLE buy_requests ADD COLUMN extended_at timestamptz;
    ALTER TABLE buy_requests ADD COLUMN reminded_at timestamptz;
    ALTER TABLE buy_requests DROP CONSTRAINT buy_requests_status_known;
    ALTER TABLE buy_requests ADD CONSTRAINT buy_requests_status_known CHECK (status IN ('active', 'closed', 'expired'));
    CREATE INDEX buy_requests_expiring ON buy_requests (expires_at) WHERE status = 'active';

    DO $$
    DECLARE definition text;
    BEGIN
      SELECT pg_get_constraintdef(c.oid) INTO definition FROM pg_constraint c
      WHERE c.conrelid = 'notifications'::regclass AND c.conname = 'notifications_type_known';
      ALTER TABLE notifications DROP CONSTRAINT notifications_type_known;
      EXECUTE 'ALTER TABLE notifications ADD CONSTRAINT notifications_type_known '
        || replace(definition, 'ARRAY[', 'ARRAY[''request_expiring''::text, ''request_expired''::text, ');
    END
    $$;
  `
)
