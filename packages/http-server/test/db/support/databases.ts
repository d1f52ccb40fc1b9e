import { SqlClient, SqlSchema } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import { expect } from "vitest"
import { defectOf } from "../../../../core/test/ports/defects.js"
import { RepositoryProbe } from "../../../../core/test/ports/RepositoryProbe.js"
import type { BackgroundSqlClient } from "../../../src/db/BackgroundSqlClient.js"
import { DatabaseLayer, DatabaseOptions } from "../../../src/db/Database.js"
import { MigratedDatabaseLayer } from "../../../src/db/Migrations.js"
import { DeviceTokenRow, SqlRepositoriesLayer } from "../../../src/db/Repositories.js"
import {
  createMigratedPostgresDatabase,
  initializedPgliteDump,
  migratedPgliteDump
} from "../../support/migrated-databases.js"
import { createPostgresDatabase } from "../../support/test-run.js"

/** A database a suite runs on, PostgreSQL or PGlite: what the layers below give. */
export type TestDatabase = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

/** A database of its own on the PostgreSQL server, from `create`, dropped when the layer closes. */
const ownPostgresDatabase = <E>(
  create: () => Promise<{ readonly url: string; readonly drop: () => Promise<void> }>,
  over: (options: DatabaseOptions) => Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | BackgroundSqlClient, E>
) =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(Effect.promise(create), (database) => Effect.promise(database.drop)),
      (database) => over(DatabaseOptions.Postgres({ url: Redacted.make(database.url) }))
    )
  )

/** An empty database of its own on the PostgreSQL server, created for this run and dropped when the layer closes. */
export const emptyPostgresDatabase = ownPostgresDatabase(
  () => createPostgresDatabase(undefined, "talab_test_"),
  DatabaseLayer
)

/**
 * A database of its own on the PostgreSQL server, migrated (a copy of the run's template database, see
 * ../../support/test-run.ts), and dropped when the layer closes.
 */
export const freshPostgresDatabase = ownPostgresDatabase(
  () => createMigratedPostgresDatabase("talab_test_"),
  MigratedDatabaseLayer
)

/** PGlite in memory, migrated (loaded from the run's migrated database when there is one). */
export const pgliteInMemory = Layer.unwrapEffect(
  Effect.map(Effect.promise(migratedPgliteDump), (dump) =>
    MigratedDatabaseLayer(dump === undefined ? DatabaseOptions.Memory() : DatabaseOptions.MemoryFromDump({ dump }))
  )
)

/** PGlite in memory before any migration (loaded from the run's dump of one after initdb when there is one). */
export const unmigratedPgliteInMemory = Layer.unwrapEffect(
  Effect.map(Effect.promise(initializedPgliteDump), (dump) =>
    DatabaseLayer(dump === undefined ? DatabaseOptions.Memory() : DatabaseOptions.MemoryFromDump({ dump }))
  )
)

/** Repositories over a migrated database, with the SqlClient exposed for assertions. */
export { defectOf }

export const repositoriesOver = <E>(database: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, E>) =>
  SqlRepositoriesLayer.pipe(Layer.provideMerge(database))

/** Runs an effect the database must refuse and answers the name of the constraint it broke. */
export const violatedConstraint = (effect: Effect.Effect<unknown>) =>
  Effect.map(defectOf(effect), (defect) => {
    expect(defect).toMatchObject({ _tag: "SqlError" })
    return (defect as { cause?: { constraint?: string } }).cause?.constraint
  })

/** A user's device tokens as stored, oldest first (the dispatcher reads them with its own query). */
export const deviceTokensOf = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    SqlSchema.findAll({
      Request: Schema.String,
      Result: DeviceTokenRow,
      execute: (id) => sql`SELECT * FROM device_tokens WHERE user_id = ${id} ORDER BY created_at, id`
    })(userId)
  ).pipe(Effect.orDie)

/** The repository contract's probe over the SQL tables it reads back. */
export const sqlRepositoryProbe = Layer.effect(
  RepositoryProbe,
  Effect.map(SqlClient.SqlClient, (sql) =>
    RepositoryProbe.of({
      deviceTokensOf: (userId) => Effect.provideService(deviceTokensOf(userId), SqlClient.SqlClient, sql),
      eventsWhere: (key, value) =>
        sql<{ type: string; payload: unknown; createdAt: Date }>`
          SELECT type, payload, created_at AS "createdAt" FROM outbox_events WHERE payload ->> ${key} = ${value}`.pipe(
          Effect.orDie
        )
    })
  )
)
