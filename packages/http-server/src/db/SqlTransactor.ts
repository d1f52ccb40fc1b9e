import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Transactor } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { runAfterCommit } from "./AfterCommit.js"
import { lazyTransaction } from "./DeferredWrites.js"

/**
 * `sql.withTransaction`, opened lazily (`lazyTransaction`): repository calls inside share one connection and
 * commit together; any failure, defect or interruption rolls all of them back. Nested transactions become
 * savepoints. Effects queued with `afterCommit` run once the outermost one has committed, then the read cache
 * hears which reads its writes changed (readcache/ReadsChanged.ts), before the transaction's caller answers.
 */
export const SqlTransactor = Layer.effect(
  Transactor,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged
    const withTransaction = lazyTransaction(sql)
    return Transactor.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        reads
          .gathering(runAfterCommit(withTransaction(effect)))
          .pipe(Effect.catchAll((error) => (error instanceof SqlError ? Effect.die(error) : Effect.fail(error as E))))
    })
  })
)
