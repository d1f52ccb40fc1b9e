import { randomUUID } from "node:crypto"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import {
  emptyPostgresDatabase,
  repositoriesOver,
  unmigratedPgliteInMemory,
  violatedConstraint
} from "./support/databases.js"
import { seedRequest } from "./support/fixtures.js"

/*
 * Migration 0013: request_matches keyed by (request, seller) with the columns other features read; the
 * RequestCreated events written before it are marked processed (no alerts about old requests); the new
 * notification types are allowed and the old ones still are.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const suite = (name: string, empty: Empty) =>
  layer(empty, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("adds request_matches, settles old RequestCreated events, allows the request_match pushes", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0013"))
        yield* Effect.scoped(
          Layer.build(
            PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(Layer.provide(NodeContext.layer))
          )
        )
        const sql = yield* SqlClient.SqlClient
        // The event only: the repositories write today's columns (0018 added some), so the rows are seeded after.
        yield* sql`INSERT INTO outbox_events (type, payload) VALUES ('RequestCreated', ${JSON.stringify({ requestId: randomUUID(), buyerId: randomUUID() })})`

        yield* Effect.scoped(Layer.build(MigrationsLayer))
        const context = yield* Effect.context<SqlClient.SqlClient | PgClient.PgClient>()
        const repositories = repositoriesOver(Layer.succeedContext(context))
        const { request, buyer } = yield* seedRequest.pipe(Effect.provide(repositories))

        const unprocessed = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM outbox_events WHERE type = 'RequestCreated' AND processed_at IS NULL`
        expect(unprocessed[0]?.n).toBe(0)

        const columns = yield* sql<{ name: string; type: string; nullable: string }>`
          SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns
          WHERE table_name = 'request_matches' AND column_name IN ('request_id', 'seller_user_id', 'matched_at')
          ORDER BY column_name`
        expect(columns).toEqual([
          { name: "matched_at", type: "timestamp with time zone", nullable: "NO" },
          { name: "request_id", type: "uuid", nullable: "NO" },
          { name: "seller_user_id", type: "uuid", nullable: "NO" }
        ])

        yield* sql`INSERT INTO request_matches (request_id, seller_user_id, matched_at) VALUES (${request.id}, ${buyer.id}, now())`
        expect(
          yield* violatedConstraint(
            sql`INSERT INTO request_matches (request_id, seller_user_id, matched_at)
                VALUES (${request.id}, ${buyer.id}, now())`.pipe(Effect.orDie)
          )
        ).toBe("request_matches_pkey")

        for (const type of ["request_match", "request_match_summary", "offer_created", "rating_prompt"]) {
          yield* sql`INSERT INTO notifications (user_id, type, payload) VALUES (${buyer.id}, ${type}, '{}'::jsonb)`
        }
        expect(
          yield* violatedConstraint(
            sql`INSERT INTO notifications (user_id, type, payload) VALUES (${buyer.id}, 'nonsense', '{}'::jsonb)`.pipe(
              Effect.orDie
            )
          )
        ).toBe("notifications_type_known")
      })
    )
  })

suite("migration 0013 on PGlite in memory", unmigratedPgliteInMemory)
suite("migration 0013 on PostgreSQL", emptyPostgresDatabase)
