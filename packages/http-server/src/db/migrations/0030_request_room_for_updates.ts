import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Room on each page of buy_requests for a row's next version. Every offer rewrites its request's row (its offer
 * count), and with full pages the new version went to another page: every index of the table, the search
 * words' GIN among them, got an entry for it. With a tenth of each page kept free the new version stays on its
 * page and, as no indexed column changes, no index is touched (a heap-only update). Under 50 clients making
 * offers, that update was about half of the time of the batch's statement that writes its rows (EXPLAIN
 * ANALYZE). It holds for pages written from now on; pages already full stay so until the table is rewritten
 * (VACUUM FULL, or a dump and restore).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE buy_requests SET (fillfactor = 90)`)
