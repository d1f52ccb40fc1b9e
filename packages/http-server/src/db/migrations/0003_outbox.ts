import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Both queues are written in the transaction of the change that causes them, so nothing is lost when the
 * process dies after a commit; workers pick rows up afterwards.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE outbox_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      processed_at timestamptz
    );
    CREATE INDEX outbox_events_unprocessed ON outbox_events (created_at, id) WHERE processed_at IS NULL;

    CREATE TABLE notifications (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL CONSTRAINT notifications_type_known
        CHECK (type IN ('offer_created', 'offer_accepted', 'message', 'rating_prompt')),
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CONSTRAINT notifications_status_known CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CONSTRAINT notifications_attempts_positive CHECK (attempts >= 0),
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    );
    CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
  `
)
