/*
 * What one statement costs the server's thread through the SQL client the server uses (@effect/sql over
 * node-postgres, the server's own pool and type parsers), beside the same statement sent with node-postgres
 * alone: one primary-key read at a time, CPU time of this process per statement, three alternated rounds,
 * medians. The difference is the Effect wrapping of each statement, which every request pays once per statement
 * (a message is five of them, a detail read one): the third line runs the statement on @effect/sql-pg's
 * connection directly (reserved once, the text compiled once), which tells the statement's own wrapping (span,
 * scope, compilation) from the connection's (docs/SCALING.md, "What a statement costs").
 *
 *   pnpm bench sql                  (or: npx tsx apps/server/bench/scenarios/sql.ts)
 *   BENCH_SECONDS=2 …               seconds per measure (default 2)
 *
 * A fresh, migrated database, dropped at the end.
 */
import { SqlClient } from "@effect/sql"
import { DatabaseOptions, MigratedDatabaseLayer } from "@talab/http-server"
import { Effect, ManagedRuntime, Redacted } from "effect"
import Pg from "pg"
import { type CpuRound, printCpuTable, runScenario, withBenchDatabase } from "../setup.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const ROUNDS = 3
const USER_ID = "00000000-0000-4000-8000-000000000001"

/** CPU microseconds this process has used (it runs no other thread that works meanwhile). */
const cpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

const measured = (cpuBefore: number, started: number, count: number): CpuRound => ({
  cpuMicros: (cpuMicros() - cpuBefore) / count,
  wallMicros: ((performance.now() - started) * 1_000) / count
})

/** node-postgres alone: `statement` one at a time for `seconds`. */
const withPg = async (statement: () => Promise<unknown>, seconds: number): Promise<CpuRound> => {
  const cpuBefore = cpuMicros()
  const started = performance.now()
  let count = 0
  while (performance.now() < started + seconds * 1_000) {
    await statement()
    count++
  }
  return measured(cpuBefore, started, count)
}

/** The same loop in one fiber, the statement an Effect, with the tracer off as it is for requests without OTLP. */
const withEffect = <E, R>(statement: Effect.Effect<unknown, E, R>, seconds: number) =>
  Effect.gen(function* () {
    const cpuBefore = cpuMicros()
    const started = performance.now()
    let count = 0
    while (performance.now() < started + seconds * 1_000) {
      yield* statement
      count++
    }
    return measured(cpuBefore, started, count)
  }).pipe(Effect.withTracerEnabled(false))

const main = () =>
  withBenchDatabase("talab_sql", async (database) => {
    // The server's database layer: its pool and type parsers, on a migrated database.
    const server = ManagedRuntime.make(
      MigratedDatabaseLayer(DatabaseOptions.Postgres({ url: Redacted.make(database.url) }))
    )
    const pool = new Pg.Pool({ connectionString: database.url, max: 1 })
    try {
      const sql = await server.runPromise(SqlClient.SqlClient)
      await server.runPromise(
        sql`INSERT INTO users (id, phone_number, name, language, created_at)
            VALUES (${USER_ID}, '+966500000001', 'Bench', 'ar', now())`
      )
      const text = "SELECT id, name, language, created_at FROM users WHERE id = $1"
      const viaPg = () => pool.query(text, [USER_ID])
      const viaEffect = (seconds: number) =>
        server.runPromise(
          withEffect(sql`SELECT id, name, language, created_at FROM users WHERE id = ${USER_ID}`, seconds)
        )

      // The connection @effect/sql-pg runs a statement on, without the statement's span, scope and compilation.
      const viaConnection = (seconds: number) =>
        server.runPromise(
          Effect.scoped(
            Effect.flatMap(sql.reserve, (connection) =>
              withEffect(connection.execute(text, [USER_ID], undefined), seconds)
            )
          )
        )

      await withPg(viaPg, 0.5)
      await viaEffect(0.5)
      await viaConnection(0.5)
      const results = { pg: [] as Array<CpuRound>, effect: [] as Array<CpuRound>, connection: [] as Array<CpuRound> }
      for (let round = 0; round < ROUNDS; round++) {
        results.pg.push(await withPg(viaPg, SECONDS))
        results.effect.push(await viaEffect(SECONDS))
        results.connection.push(await viaConnection(SECONDS))
      }

      printCpuTable(
        `one primary-key read at a time, CPU of this process per statement, median of ${ROUNDS} rounds`,
        "pg",
        [
          ["node-postgres alone", results.pg],
          ["@effect/sql (the server's)", results.effect],
          ["its connection alone", results.connection]
        ]
      )
    } finally {
      await pool.end()
      await server.dispose()
    }
  })

runScenario(main)
