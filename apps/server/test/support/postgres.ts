import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { createMigratedPostgresDatabase } from "../../../../packages/http-server/test/support/migrated-databases.js"

/** Runs one SQL statement on the database at `url` over a throwaway connection; a failure is a defect. */
export const runSql = <A>(url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

/**
 * A new PostgreSQL database for one suite, already migrated (a copy of the run's template database, see
 * packages/http-server/test/support/test-run.ts); drop it with the returned function.
 */
export const createPostgresDatabase = async () => {
  const { url, drop } = await createMigratedPostgresDatabase("talab_e2e_")
  return { url, drop }
}
