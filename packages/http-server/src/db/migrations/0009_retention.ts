import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/* Indexes for the retention job's deletes, so each finds its old rows without reading the whole table. */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE INDEX sessions_expires_at ON sessions (expires_at);
    CREATE INDEX otp_challenges_expires_at ON otp_challenges (expires_at);
    CREATE INDEX notifications_sent_at ON notifications (sent_at) WHERE status = 'sent';
    CREATE INDEX outbox_events_processed_at ON outbox_events (processed_at) WHERE processed_at IS NOT NULL
  `
)
