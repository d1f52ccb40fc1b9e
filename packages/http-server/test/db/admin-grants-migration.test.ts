import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { UserRepo } from "@talab/core"
import { Duration, Effect, Layer } from "effect"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { emptyPostgresDatabase, repositoriesOver, unmigratedPgliteInMemory } from "./support/databases.js"
import { aUser } from "./support/fixtures.js"

/*
 * Migration 0006: every users.is_admin set before it was copied from ADMIN_PHONE_NUMBERS at sign-in, so it is
 * cleared; from then on the column holds only an operator's grant, which the migration has no business touching.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const suite = (name: string, empty: Empty) =>
  layer(empty, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("clears the admin flags sign-in copied from the list, and nothing else", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0006"))
        yield* Effect.scoped(
          Layer.build(
            PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(Layer.provide(NodeContext.layer))
          )
        )
        const context = yield* Effect.context<SqlClient.SqlClient | PgClient.PgClient>()
        const repositories = repositoriesOver(Layer.succeedContext(context))
        const [admin, user] = yield* Effect.flatMap(UserRepo, (users) =>
          Effect.all([users.insertOrGet(aUser({ isAdmin: true, name: "Listed" })), users.insertOrGet(aUser())])
        ).pipe(Effect.provide(repositories))

        yield* Effect.scoped(Layer.build(MigrationsLayer))

        const rows = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ id: string; name: string | null; is_admin: boolean }>`
            SELECT id, name, is_admin FROM users WHERE id IN (${admin!.id}, ${user!.id}) ORDER BY name NULLS LAST`
        )
        expect(rows).toEqual([
          { id: admin!.id, name: "Listed", is_admin: false },
          { id: user!.id, name: null, is_admin: false }
        ])
      })
    )
  })

suite("migration 0006 on PGlite in memory", unmigratedPgliteInMemory)
suite("migration 0006 on PostgreSQL", emptyPostgresDatabase)
