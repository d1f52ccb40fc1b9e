import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import { recordOperatorAction } from "../../src/audit/AuditTrail.js"
import { runRetention } from "../../src/ops/Retention.js"
import { freshPostgresDatabase, pgliteInMemory, type TestDatabase } from "./support/databases.js"

/*
 * The audit log is append-only in the database itself (migration 0027): UPDATE, DELETE and TRUNCATE are refused
 * to whoever tries, here the role the application connects as (the table's owner, which a grant could not stop),
 * with raw SQL, on both databases. The retention job, which deletes old rows elsewhere, leaves it whole.
 */

const anEntry = (sql: SqlClient.SqlClient, createdAt = new Date("2020-01-01T00:00:00Z")) =>
  Effect.gen(function* () {
    const id = randomUUID()
    yield* sql`INSERT INTO audit_log (id, actor_type, actor_id, actor_name, action, target_type, target_id, changes,
        request_id, created_at)
      VALUES (${id}, 'admin', ${randomUUID()}, 'Noura', 'seller_profile.approve', 'seller_profile', ${randomUUID()},
        ${JSON.stringify({ status: { before: "pending", after: "approved" } })}::jsonb, 'req-1', ${createdAt})`
    return id
  })

const rowOf = (sql: SqlClient.SqlClient, id: string) =>
  sql<{ action: string; actor_name: string; request_id: string }>`
    SELECT action, actor_name, request_id FROM audit_log WHERE id = ${id}`

/** Runs a statement the database must refuse; answers its error's message. */
const refusal = (statement: Effect.Effect<unknown, unknown>) =>
  Effect.map(Effect.either(statement), (result) => {
    expect(Either.isLeft(result), "the statement went through").toBe(true)
    return String((result as Either.Left<{ cause?: { message?: string } }, unknown>).left.cause?.message ?? "")
  })

const suite = (name: string, database: TestDatabase) =>
  layer(database, { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("refuses UPDATE, DELETE and TRUNCATE on audit_log to the application's own role", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [{ owner, me }] = (yield* sql<{ owner: string; me: string }>`
          SELECT tableowner AS owner, current_user AS me FROM pg_tables WHERE tablename = 'audit_log'`) as [
          { owner: string; me: string }
        ]
        // The application connects as the table's owner: no privilege it lacks could be what refuses.
        expect(owner).toBe(me)
        const id = yield* anEntry(sql)
        const before = yield* rowOf(sql, id)

        for (const statement of [
          sql`UPDATE audit_log SET actor_name = 'Someone else' WHERE id = ${id}`,
          sql`UPDATE audit_log SET changes = '{}'::jsonb`,
          sql`DELETE FROM audit_log WHERE id = ${id}`,
          sql`DELETE FROM audit_log`,
          sql`TRUNCATE audit_log`,
          sql`TRUNCATE audit_log CASCADE`
        ]) {
          expect(yield* refusal(statement)).toMatch(/audit_log is append-only: (UPDATE|DELETE|TRUNCATE) refused/)
        }
        // Inside a transaction, the refusal takes the whole transaction with it.
        const other = randomUUID()
        yield* refusal(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO users (id, phone_number) VALUES (${other}, ${`+9665${Date.now() % 1e8}`})`
              yield* sql`DELETE FROM audit_log WHERE id = ${id}`
            })
          )
        )
        expect(yield* sql`SELECT id FROM users WHERE id = ${other}`).toEqual([])
        expect(yield* rowOf(sql, id)).toEqual(before)
        expect(before).toEqual([{ action: "seller_profile.approve", actor_name: "Noura", request_id: "req-1" }])
      })
    )

    it.effect("an operator's entry commits with the change it records, and is gone with it when that fails", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const count = Effect.map(
          sql<{ n: number }>`SELECT COUNT(*)::int AS n FROM audit_log WHERE action = 'user.admin_grant'`,
          ([row]) => row!.n
        )
        const before = yield* count
        yield* Effect.either(
          sql.withTransaction(
            Effect.zipRight(
              recordOperatorAction({ action: "user.admin_grant", target: { type: "user", id: randomUUID() } }),
              Effect.fail("the change failed")
            )
          )
        )
        expect(yield* count).toBe(before)
        yield* recordOperatorAction({ action: "user.admin_grant", target: { type: "user", id: randomUUID() } })
        expect(yield* count).toBe(before + 1)
      })
    )

    it.effect("retention never deletes audit entries, however old; a run an operator asked for is recorded", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const old = yield* anEntry(sql, new Date("2001-01-01T00:00:00Z"))
        const removed = yield* runRetention(0)
        expect(removed).toBeDefined()
        expect(yield* rowOf(sql, old)).toHaveLength(1)
        yield* runRetention(0, { byOperator: true })
        expect(yield* rowOf(sql, old)).toHaveLength(1)
        const [run] = yield* sql<{ actor_type: string; actor_host: string; target_type: string | null }>`
          SELECT actor_type, actor_host, target_type FROM audit_log WHERE action = 'database.retention'`
        expect(run).toMatchObject({ actor_type: "operator", target_type: null })
        expect(run!.actor_host.length).toBeGreaterThan(0)
      })
    )
  })

suite("audit log on PGlite in memory", pgliteInMemory)
suite("audit log on PostgreSQL", freshPostgresDatabase)
