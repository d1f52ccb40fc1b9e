import { SqlClient } from "@effect/sql"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { causeIsUnreachable } from "./Availability.js"
import { migrations } from "./Migrations.js"

/** Where the database's schema stands against the migrations this server was built with. */
export type SchemaState =
  | { readonly _tag: "Current" }
  | { readonly _tag: "Behind"; readonly applied: number; readonly required: number }
  | { readonly _tag: "Unknown"; readonly reason: string }

const CURRENT: SchemaState = { _tag: "Current" }

/** The last migration this server knows: the database must be at it (or past it, mid-deploy) to be served. */
const REQUIRED_MIGRATION = Math.max(...Object.keys(migrations).map((id) => Number.parseInt(id, 10)))

/** What a readiness probe or a 503 says of a schema that is not current. */
export const describeSchemaState = (state: SchemaState) =>
  state._tag === "Behind"
    ? `the database schema is at migration ${state.applied} of ${state.required}: run \`talab migrate\``
    : state._tag === "Unknown"
      ? `the database schema could not be read: ${state.reason}`
      : "the database schema is current"

/**
 * The schema's state, as the readiness probe and the API gate ask it. Once current it stays current and costs
 * nothing; until then the database is asked again at most once per `recheckEvery`, so a `talab migrate` run
 * meanwhile makes the server ready without a restart.
 */
interface SchemaStatusShape {
  readonly state: Effect.Effect<SchemaState>
}

/** Current by default: a server whose migrations ran as it started (and the testkit's) never asks. */
export class SchemaStatus extends Context.Reference<SchemaStatus>()("Database/SchemaStatus", {
  defaultValue: (): SchemaStatusShape => ({ state: Effect.succeed(CURRENT) })
}) {}

/** The highest migration applied, 0 when the migrator's table is not there yet (asked apart: a query naming a
 * missing table fails as it is planned, whatever guards it). */
const appliedMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ readonly present: boolean }>`
    SELECT to_regclass('effect_sql_migrations') IS NOT NULL AS present`
  if (table?.present !== true) return 0
  const [row] = yield* sql<{ readonly applied: number | null }>`
    SELECT MAX(migration_id) AS applied FROM effect_sql_migrations`
  return Number(row?.applied ?? 0)
})

const readState = appliedMigration.pipe(
  Effect.timeout(Duration.seconds(2)),
  Effect.map(
    (applied): SchemaState =>
      applied >= REQUIRED_MIGRATION ? CURRENT : { _tag: "Behind", applied, required: REQUIRED_MIGRATION }
  ),
  Effect.catchAllCause((cause) =>
    Effect.succeed<SchemaState>({
      _tag: "Unknown",
      reason: causeIsUnreachable(cause)
        ? "the database is unreachable"
        : (Cause.pretty(cause).split("\n")[0] ?? "the query failed")
    })
  )
)

/**
 * A status that asks the database (MIGRATE_ON_START=false). Callers between two checks get the last answer, so a
 * burst of API calls on a database not yet migrated costs one query a second.
 */
export const checkedSchemaStatus = (recheckEvery: Duration.DurationInput = Duration.seconds(1)) =>
  Layer.effect(
    SchemaStatus,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const interval = Duration.toMillis(recheckEvery)
      let last: SchemaState = { _tag: "Unknown", reason: "not checked yet" }
      let checkedAt = Number.NEGATIVE_INFINITY
      let checking = false
      const refresh = readState.pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.tap((state) =>
          Effect.sync(() => {
            last = state
            checkedAt = Date.now()
          })
        ),
        Effect.ensuring(Effect.sync(() => (checking = false)))
      )
      const state = Effect.suspend(() => {
        if (last._tag === "Current" || checking || Date.now() - checkedAt < interval) return Effect.succeed(last)
        checking = true
        return refresh
      })
      // Known before the port opens, so the first probe and calls are answered from it.
      yield* state
      return { state }
    })
  )
