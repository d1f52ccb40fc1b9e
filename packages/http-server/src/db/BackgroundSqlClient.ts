import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * The SqlClient of the push dispatcher. On PostgreSQL, a small pool of its own (db/Database.ts): under load
 * the requests' transactions hold every connection of the main pool, and a delivery queued behind them for
 * each of its statements (at 200 offers/s, a commit-to-push p95 of 280 ms instead of 50 in
 * `pnpm bench push`). On the embedded database, which is one session, the same client as everything else.
 */
export class BackgroundSqlClient extends Context.Tag("@talab/http-server/BackgroundSqlClient")<
  BackgroundSqlClient,
  SqlClient.SqlClient
>() {
  /** The main client, for a database with one connection. */
  static readonly sameAsMain = Layer.effect(BackgroundSqlClient, SqlClient.SqlClient)
}
