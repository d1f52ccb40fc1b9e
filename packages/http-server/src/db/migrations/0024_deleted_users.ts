import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * A deleted account keeps its row, so the deals, ratings and messages other people hold still name it: only the
 * id stays, with when it was deleted. The phone number is erased (NULL, which the unique constraint lets any
 * number of deleted rows share), so the same number signs up again as a new user. `users_deleted_erased` holds
 * the row to that: a deleted user has no number, name or avatar, and is no admin. `deleted` is what every view of
 * another party shows beside the id and name (`{id, name: null, deleted: true}`): read models name their columns
 * after the view's fields, so it is a column of its own, derived here once.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE users ADD COLUMN deleted_at timestamptz;
    ALTER TABLE users ADD COLUMN deleted boolean GENERATED ALWAYS AS (deleted_at IS NOT NULL) STORED;
    ALTER TABLE users ALTER COLUMN phone_number DROP NOT NULL;
    ALTER TABLE users ADD CONSTRAINT users_number_unless_deleted CHECK ((phone_number IS NULL) = (deleted_at IS NOT NULL));
    ALTER TABLE users ADD CONSTRAINT users_deleted_erased CHECK (
      deleted_at IS NULL OR (name IS NULL AND avatar_url IS NULL AND NOT is_admin)
    )
  `
)
