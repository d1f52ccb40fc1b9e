import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { emptyPostgresDatabase, unmigratedPgliteInMemory, violatedConstraint } from "./support/databases.js"
import { oldSchemaConversation } from "./support/old-schema.js"

/*
 * Migration 0010: the messages stored before it are numbered 1, 2, 3, … per conversation in the order history
 * shows them (created_at, then id), and no two messages of a conversation can share a seq from then on.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const suite = (name: string, empty: Empty) =>
  layer(empty, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("numbers existing messages per conversation by created_at, then id; a repeated seq is refused", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0010"))
        yield* Effect.scoped(
          Layer.build(
            PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(Layer.provide(NodeContext.layer))
          )
        )
        const first = yield* oldSchemaConversation
        const second = yield* oldSchemaConversation
        const sql = yield* SqlClient.SqlClient
        const a = first.conversationId
        const b = second.conversationId
        const buyer = first.buyerId
        // Inserted out of order; two share a created_at and are told apart by id.
        const rows: ReadonlyArray<readonly [string, string, string]> = [
          ["00000000-0000-4000-8000-000000000003", a, "2025-01-01T10:00:02Z"],
          ["00000000-0000-4000-8000-000000000002", a, "2025-01-01T10:00:01Z"],
          ["00000000-0000-4000-8000-000000000001", a, "2025-01-01T10:00:01Z"],
          ["00000000-0000-4000-8000-000000000004", b, "2025-01-01T09:00:00Z"]
        ]
        for (const [id, conversationId, createdAt] of rows) {
          yield* sql`INSERT INTO messages (id, conversation_id, sender_id, message_text, created_at)
                     VALUES (${id}, ${conversationId}, ${buyer}, 'hello', ${createdAt})`
        }

        yield* Effect.scoped(Layer.build(MigrationsLayer))

        const numbered = yield* sql<{ id: string; seq: number }>`
          SELECT id, seq FROM messages ORDER BY id`
        expect(numbered).toEqual([
          { id: "00000000-0000-4000-8000-000000000001", seq: 1 },
          { id: "00000000-0000-4000-8000-000000000002", seq: 2 },
          { id: "00000000-0000-4000-8000-000000000003", seq: 3 },
          { id: "00000000-0000-4000-8000-000000000004", seq: 1 }
        ])
        expect(
          yield* violatedConstraint(
            sql`INSERT INTO messages (id, conversation_id, sender_id, message_text, seq)
                VALUES (gen_random_uuid(), ${a}, ${buyer}, 'again', 3)`.pipe(Effect.orDie)
          )
        ).toBe("messages_by_conversation_seq")
      })
    )
  })

suite("migration 0010 on PGlite in memory", unmigratedPgliteInMemory)
suite("migration 0010 on PostgreSQL", emptyPostgresDatabase)
