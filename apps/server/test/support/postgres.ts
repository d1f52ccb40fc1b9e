import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

const ADMIN_URL = process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** Runs one SQL statement on the database at `url` over a throwaway connection; a failure is a defect. */
export const runSql = <A>(url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

const onMaintenanceDatabase = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  runSql(ADMIN_URL, statement)

/** A new, empty PostgreSQL database for one suite; drop it with the returned function. */
export const createPostgresDatabase = async () => {
  const name = `talab_e2e_${randomBytes(6).toString("hex")}`
  await onMaintenanceDatabase((sql) => sql`CREATE DATABASE ${sql(name)}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () =>
      onMaintenanceDatabase((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).then(() => undefined)
  }
}
