import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * `users.is_admin` now means "granted by an operator" (talab admin grant); ADMIN_PHONE_NUMBERS is read at each
 * request and never written. Until now sign-in copied the list into the column, so every true in it came from
 * the list: clearing them makes a number removed from the list lose admin, as the list is authoritative.
 * Numbers still listed stay admins through the list.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE users SET is_admin = false WHERE is_admin`)
