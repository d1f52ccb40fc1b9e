import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Transactor } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { runAfterCommit } from "./AfterCommit.js"
import { lazyTransaction } from "./DeferredWrites.js"

/**
 * `sql.withTransaction`, opened lazily (`lazyTransaction`): repository calls inside share one connection and
 * commit together; any failure, defect or interruption rolls all of them back. Nested transactions become
 * savepoints. Effects queued with `afterCommit` run once the outermost one has committed.
 */
export const SqlTransactor = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const withTransaction = lazyTransaction(sql)
    return Transactor.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        runAfterCommit(withTransaction(effect)).pipe(
          Effect.catchAll((error) => (error instanceof SqlError ? Effect.die(error) : Effect.fail(error as E)))
        )
    })
  })
)
