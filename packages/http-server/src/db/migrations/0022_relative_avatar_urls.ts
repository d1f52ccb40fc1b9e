import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Avatars were stored as absolute URLs on the PUBLIC_URL of the day; they are stored as their path on this server
 * now (users/AvatarUrl.ts) and shown on the PUBLIC_URL of the moment. Whatever came before the path (a scheme and
 * host, a base path) goes; a URL without the path (not one this server made) is left as it is.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    UPDATE users SET avatar_url = substr(avatar_url, strpos(avatar_url, '/uploads/avatars/'))
    WHERE strpos(avatar_url, '/uploads/avatars/') > 1
  `
)
