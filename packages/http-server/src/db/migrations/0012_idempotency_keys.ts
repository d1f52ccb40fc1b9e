import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * The answers of POSTs sent with an `Idempotency-Key`, one row per (scope, key): a user's id, or the
 * client IP for /auth/*. `running` while the first call runs (claim_id names that run), `completed` with
 * the stored answer after. The retention job deletes rows past expires_at.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      claim_id uuid NOT NULL,
      state text NOT NULL CHECK (state IN ('running', 'completed')),
      status integer,
      headers jsonb,
      body text,
      created_at timestamptz NOT NULL,
      locked_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)
  `
)
