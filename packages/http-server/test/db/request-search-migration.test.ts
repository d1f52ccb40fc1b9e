import { randomUUID } from "node:crypto"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { indexWordsOf } from "@talab/core"
import { Duration, Effect, Layer } from "effect"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { emptyPostgresDatabase, unmigratedPgliteInMemory } from "./support/databases.js"
import { oldSchemaUser } from "./support/old-schema.js"

/*
 * Migration 0025: requests stored before it are given their search words by core's normaliser (in batches), the
 * vocabulary learns their words with their deletions, and the GIN index is built over them.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const suite = (name: string, empty: Empty) =>
  layer(empty, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("gives existing requests their search words and the vocabulary its terms", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0025"))
        yield* Effect.scoped(
          Layer.build(
            PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(Layer.provide(NodeContext.layer))
          )
        )
        const sql = yield* SqlClient.SqlClient
        const buyer = yield* oldSchemaUser
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const id = randomUUID()
          ids.push(id)
          // The columns of migration 0022's schema, written as they were then (no search words).
          yield* sql`
            INSERT INTO buy_requests (id, buyer_id, category, product_brand, product_model, budget_min, budget_max,
                                      location_district, location_city, notes, status, expires_at)
            VALUES (${id}, ${buyer}, 'phone', ${i === 0 ? "سامسونج" : null}, ${i === 0 ? "Galaxy S23" : null},
                    1000, 2000, 'Olaya', ${`مكة ${i}`}, ${i === 0 ? "أبيض" : null}, 'active', now() + interval '1 day')`
        }

        yield* Effect.scoped(Layer.build(MigrationsLayer))

        const rows = yield* sql<{ id: string; searchWords: ReadonlyArray<string>; searchTitle: ReadonlyArray<string> }>`
          SELECT id, search_words AS "searchWords", search_title AS "searchTitle" FROM buy_requests`
        const byId = new Map(rows.map((row) => [row.id, row]))
        expect([...byId.get(ids[0]!)!.searchWords].sort()).toEqual(
          indexWordsOf("سامسونج", "Galaxy S23", "أبيض", "Olaya", "مكة 0")
        )
        expect([...byId.get(ids[0]!)!.searchTitle].sort()).toEqual(indexWordsOf("سامسونج", "Galaxy S23"))
        expect([...byId.get(ids[1]!)!.searchWords].sort()).toEqual(indexWordsOf("Olaya", "مكة 1"))
        const found = yield* sql<{ id: string }>`
          SELECT id FROM buy_requests WHERE search_words && ARRAY['samsung']::text[]`
        expect(found.map((row) => row.id)).toEqual([ids[0]])
        const terms = yield* sql<{ word: string }>`
          SELECT word FROM search_term_deletions WHERE deletion = 'galxy'`
        expect(terms.map((row) => row.word)).toEqual(["galaxy"])
        const index = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'buy_requests_search'`
        expect(index[0]!.n).toBe(1)
      })
    )
  })

suite("migration 0025 on PGlite in memory", unmigratedPgliteInMemory)
suite("migration 0025 on PostgreSQL", emptyPostgresDatabase)
