import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import { expect } from "vitest"
import { DatabaseLayer, DatabaseOptions } from "../../../src/db/Database.js"
import { MigratedDatabaseLayer, MigrationsLayer } from "../../../src/db/Migrations.js"
import { SqlRepositoriesLayer } from "../../../src/repos/index.js"

const serverUrl = process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432"

const onMaintenanceDatabase = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, statement).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(`${serverUrl}/postgres`) })),
    Effect.orDie
  )

/** An empty database of its own on the PostgreSQL server, created for this run and dropped when the layer closes. */
export const emptyPostgresDatabase = Layer.unwrapScoped(
  Effect.gen(function* () {
    const name = `talab_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`
    yield* Effect.acquireRelease(
      onMaintenanceDatabase((sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onMaintenanceDatabase((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    )
    return DatabaseLayer(DatabaseOptions.Postgres({ url: Redacted.make(`${serverUrl}/${name}`) }))
  })
)

/** A database of its own on the PostgreSQL server, migrated, and dropped when the layer closes. */
export const freshPostgresDatabase = MigrationsLayer.pipe(Layer.provideMerge(emptyPostgresDatabase))

export const pgliteInMemory = MigratedDatabaseLayer(DatabaseOptions.Memory())

/** Repositories over a migrated database, with the SqlClient exposed for assertions. */
export const repositoriesOver = <E>(database: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, E>) =>
  SqlRepositoriesLayer.pipe(Layer.provideMerge(database))

/** Runs an effect that must die, not fail: port signatures carry no infrastructure errors. Answers the defect. */
export const defectOf = (effect: Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    expect(Exit.isFailure(exit), "the effect succeeded").toBe(true)
    if (Exit.isSuccess(exit)) return undefined
    expect(Option.isNone(Cause.failureOption(exit.cause)), "a typed failure leaked out of a port").toBe(true)
    return Option.getOrThrow(Cause.dieOption(exit.cause))
  })

/** Runs an effect the database must refuse and answers the name of the constraint it broke. */
export const violatedConstraint = (effect: Effect.Effect<unknown>) =>
  Effect.map(defectOf(effect), (defect) => {
    expect(defect).toMatchObject({ _tag: "SqlError" })
    return (defect as { cause?: { constraint?: string } }).cause?.constraint
  })
