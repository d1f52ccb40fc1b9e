import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Sessions a user can see and end (docs/DECISIONS.md, "Sessions"): the device named at sign-in, the network it
 * signed in from (a prefix, never the address), and when it was last used; a push token belongs to the session
 * that registered it. Sessions from before have no device or network, and were last used when created as far
 * as anyone knows. Tokens from before belong to no session (NULL): ending a session cannot tell whose they are,
 * so they stay until the app registers them again (which binds them) or logs out with them.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE sessions
      ADD COLUMN last_used_at timestamptz,
      ADD COLUMN device_platform text
        CONSTRAINT sessions_device_platform_known CHECK (device_platform IN ('ios', 'android', 'web')),
      ADD COLUMN device_name text
        CONSTRAINT sessions_device_name_length CHECK (char_length(device_name) BETWEEN 1 AND 100),
      ADD COLUMN ip_prefix text,
      ADD CONSTRAINT sessions_device_whole CHECK ((device_platform IS NULL) = (device_name IS NULL));
    UPDATE sessions SET last_used_at = created_at;
    ALTER TABLE sessions ALTER COLUMN last_used_at SET NOT NULL, ALTER COLUMN last_used_at SET DEFAULT now();

    ALTER TABLE device_tokens ADD COLUMN session_id uuid REFERENCES sessions (id) ON DELETE CASCADE;
    CREATE INDEX device_tokens_session_id ON device_tokens (session_id);
  `
)
