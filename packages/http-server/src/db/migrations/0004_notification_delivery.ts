import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * What each device token made of a notification ({"<token>": "delivered" | "unregistered" | "failed"}), so a
 * retry after a transient error on one device does not push again to the devices that already have it.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE notifications ADD COLUMN device_outcomes jsonb NOT NULL DEFAULT '{}'::jsonb
  `
)
