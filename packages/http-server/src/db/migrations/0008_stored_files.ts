import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Uploaded files (avatars) kept in the database for FILE_STORE=database, so every instance behind a load
 * balancer serves what any of them stored. Keys are made by the server and never reused.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE stored_files (
      key text PRIMARY KEY,
      content_type text NOT NULL,
      bytes bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
)
