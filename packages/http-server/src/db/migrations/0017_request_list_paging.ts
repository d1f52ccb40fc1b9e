import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * GET /requests filtered by category and city together walked buy_requests_by_status_city and read every row
 * to test its category, so a deep page cost in proportion to how rare the category is among the city's rows
 * (`pnpm bench growth`). With the three equality columns first, every filter of the list has an index whose
 * order is the list's (created_at DESC, id DESC), and the page's ids are read from the index alone
 * (RequestQueries: the rows are fetched for the 20 ids of the page only, whatever the OFFSET).
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE INDEX buy_requests_by_status_category_city
      ON buy_requests (status, category, location_city, created_at DESC, id DESC)
  `
)
