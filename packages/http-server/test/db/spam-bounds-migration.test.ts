import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { emptyPostgresDatabase, unmigratedPgliteInMemory, violatedConstraint } from "./support/databases.js"
import { oldSchemaUser } from "./support/old-schema.js"

/*
 * Migration 0021: pending reports filed twice before it (same reporter, reported user and deal, no deal counting
 * as one) keep their oldest and the others are dismissed as duplicates, so the unique index can be made; from
 * then on a second pending one is refused by the index.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const suite = (name: string, empty: Empty) =>
  layer(empty, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("dismisses pending duplicates but the oldest, keeps the rest, and refuses a new duplicate", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0021"))
        yield* Effect.scoped(
          Layer.build(
            PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(Layer.provide(NodeContext.layer))
          )
        )
        const sql = yield* SqlClient.SqlClient
        const reporter = yield* oldSchemaUser
        const target = yield* oldSchemaUser
        const other = yield* oldSchemaUser
        const report = (id: string, reportedUserId: string, createdAt: string, status = "pending") =>
          sql`INSERT INTO reports (id, reporter_id, reported_user_id, reason, status, action, resolved_at, created_at)
              VALUES (${id}, ${reporter}, ${reportedUserId}, 'scam', ${status},
                      ${status === "pending" ? null : "dismiss"}, ${status === "pending" ? null : createdAt},
                      ${createdAt})`
        yield* report("00000000-0000-4000-8000-000000000002", target, "2025-01-01T10:00:02Z")
        yield* report("00000000-0000-4000-8000-000000000001", target, "2025-01-01T10:00:01Z")
        yield* report("00000000-0000-4000-8000-000000000003", target, "2025-01-01T10:00:03Z")
        yield* report("00000000-0000-4000-8000-000000000004", target, "2025-01-01T09:00:00Z", "dismissed")
        yield* report("00000000-0000-4000-8000-000000000005", other, "2025-01-01T10:00:05Z")

        yield* Effect.scoped(Layer.build(MigrationsLayer))

        const rows = yield* sql<{ id: string; status: string; action: string | null }>`
          SELECT id, status, action FROM reports ORDER BY id`
        expect(rows).toEqual([
          { id: "00000000-0000-4000-8000-000000000001", status: "pending", action: null },
          { id: "00000000-0000-4000-8000-000000000002", status: "dismissed", action: "dismiss" },
          { id: "00000000-0000-4000-8000-000000000003", status: "dismissed", action: "dismiss" },
          { id: "00000000-0000-4000-8000-000000000004", status: "dismissed", action: "dismiss" },
          { id: "00000000-0000-4000-8000-000000000005", status: "pending", action: null }
        ])
        expect(
          yield* violatedConstraint(
            report("00000000-0000-4000-8000-000000000006", target, "2025-01-02T10:00:00Z").pipe(Effect.orDie)
          )
        ).toBe("reports_one_pending_per_reporter")
      })
    )
  })

suite("migration 0021 on PGlite in memory", unmigratedPgliteInMemory)
suite("migration 0021 on PostgreSQL", emptyPostgresDatabase)
