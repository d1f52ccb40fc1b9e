import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/*
 * Round trips are what a write costs most here: each one is a turn of a busy event loop with a pooled connection
 * held. So a transaction is opened lazily, and writes whose result nobody reads (an insert, an event appended to
 * the outbox) wait and go to the server together, as one statement of data-modifying CTEs, just before the next
 * statement that reads, or at the end. A transaction that only writes so becomes one statement and no
 * transaction at all (a statement is atomic by itself): POST /requests is one round trip instead of four.
 *
 * The rules that keep this equal to running each write where it stands:
 * - every statement that is not deferred first sends what waits, so a read sees the writes before it;
 * - the sub-statements of one statement share a snapshot and cannot see each other's rows, so a deferred write
 *   must neither read what another deferred write changes nor change a row another one changes: deferred writes
 *   are inserts of new rows or updates, each with a `key` naming its row when another write of the transaction
 *   could touch that row (a second write of the same key first sends what waits); foreign keys between them
 *   hold, as they are checked at the end of the statement;
 * - a failure anywhere rolls everything back, the waiting writes included, which are then never sent;
 * - inside a savepoint (a nested transaction) nothing is deferred, as its rollback must take its writes with it.
 */

interface Deferred {
  readonly statement: Statement<unknown>
  readonly key: string | undefined
}

/**
 * The connection a lazy transaction puts where `sql.withTransaction` puts its own: the first statement run on it
 * acquires a pooled connection and begins the transaction; each statement first sends the deferred writes.
 */
class LazyTransactionConnection implements Connection {
  private deferred: Array<Deferred> = []
  private opened: Connection | undefined
  /** The connection, acquired and the transaction begun on the first call; the same one after. */
  private open: Effect.Effect<Connection, SqlError> = Effect.dieMessage("LazyTransactionConnection.make opens it")

  private constructor(private readonly sql: SqlClient.SqlClient) {}

  /**
   * A lazy transaction that runs `begin` (acquire a connection and begin on it) once, when first needed. `begin`
   * and the record that it ran are one uninterruptible step, so an interruption cannot leave a begun
   * transaction unknown to the end of the transaction (and its connection back in the pool still open).
   */
  static make(sql: SqlClient.SqlClient, begin: Effect.Effect<Connection, SqlError>) {
    const connection = new LazyTransactionConnection(sql)
    return Effect.map(
      Effect.cached(
        Effect.uninterruptible(
          Effect.tap(begin, (opened) =>
            Effect.sync(() => {
              connection.opened = opened
            })
          )
        )
      ),
      (open) => {
        connection.open = open
        return connection
      }
    )
  }

  /** Ends the transaction if it was begun: `end` runs on its connection. */
  ifOpen(end: (connection: Connection) => Effect.Effect<unknown, SqlError>): Effect.Effect<unknown, SqlError> {
    return this.opened === undefined ? Effect.void : end(this.opened)
  }

  get isOpen() {
    return this.opened !== undefined
  }

  defer(statement: Statement<unknown>, key: string | undefined): Effect.Effect<void, SqlError> {
    return Effect.suspend(() => {
      const clash = key !== undefined && this.deferred.some((write) => write.key === key)
      return Effect.zipRight(
        clash ? this.sendDeferred : Effect.void,
        Effect.sync(() => {
          this.deferred.push({ statement, key })
        })
      )
    })
  }

  /** The deferred writes as one statement, and none are left waiting; `undefined` when none were. */
  takeDeferred(): Statement<unknown> | undefined {
    const writes = this.deferred
    this.deferred = []
    return writes.length === 0
      ? undefined
      : oneStatement(
          this.sql,
          writes.map(({ statement }) => statement)
        )
  }

  /** Opens the transaction if needed and runs the deferred writes in it. */
  get sendDeferred(): Effect.Effect<Connection, SqlError> {
    return Effect.flatMap(this.open, (connection) => {
      const writes = this.takeDeferred()
      return writes === undefined
        ? Effect.succeed(connection)
        : writes.pipe(Effect.provideService(SqlClient.TransactionConnection, [connection, 0]), Effect.as(connection))
    })
  }

  readonly execute: Connection["execute"] = (sql, params, transformRows) =>
    Effect.flatMap(this.sendDeferred, (connection) => connection.execute(sql, params, transformRows))
  readonly executeRaw: Connection["executeRaw"] = (sql, params) =>
    Effect.flatMap(this.sendDeferred, (connection) => connection.executeRaw(sql, params))
  readonly executeValues: Connection["executeValues"] = (sql, params) =>
    Effect.flatMap(this.sendDeferred, (connection) => connection.executeValues(sql, params))
  readonly executeUnprepared: Connection["executeUnprepared"] = (sql, params, transformRows) =>
    Effect.flatMap(this.sendDeferred, (connection) => connection.executeUnprepared(sql, params, transformRows))
  readonly executeStream: Connection["executeStream"] = (sql, params, transformRows) =>
    Stream.unwrap(Effect.map(this.sendDeferred, (connection) => connection.executeStream(sql, params, transformRows)))
}

/** Writes as one statement of data-modifying CTEs, the last one the statement's body. */
const oneStatement = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Statement<unknown>>): Statement<unknown> => {
  if (writes.length === 1) return writes[0]!
  const leading = writes.slice(0, -1).map((statement, i) => sql`${sql(`deferred_${i}`)} AS (${statement})`)
  return sql`WITH ${sql.join(", ", false)(leading)} ${writes.at(-1)!}`
}

/**
 * Runs `writes` as one statement now, or, in the outermost transaction opened by {@link lazyTransaction}, when
 * the next statement runs or the transaction ends (see the rules above). Each is an insert, or an update of
 * the row its `key` names.
 */
export const deferredWrites = (
  sql: SqlClient.SqlClient,
  writes: ReadonlyArray<{ readonly statement: Statement<unknown>; readonly key?: string | undefined }>
): Effect.Effect<void, SqlError> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
    if (transaction._tag === "Some") {
      const [connection, depth] = transaction.value
      if (connection instanceof LazyTransactionConnection && depth === 0) {
        return Effect.forEach(writes, ({ statement, key }) => connection.defer(statement, key), { discard: true })
      }
    }
    return writes.length === 0
      ? Effect.void
      : Effect.asVoid(
          oneStatement(
            sql,
            writes.map((w) => w.statement)
          )
        )
  })

/** {@link deferredWrites} of one write. */
export const deferredWrite = (sql: SqlClient.SqlClient, statement: Statement<unknown>, key?: string) =>
  deferredWrites(sql, [{ statement, key }])

/**
 * `sql.withTransaction`, opened on its first statement and with {@link deferredWrite}s sent together. Nested in
 * another transaction it is `sql.withTransaction` itself (a savepoint).
 */
export const lazyTransaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      outer._tag === "Some"
        ? sql.withTransaction(effect)
        : Effect.uninterruptibleMask((restore) =>
            Effect.gen(function* () {
              const scope = yield* Scope.make()
              const connection = yield* LazyTransactionConnection.make(
                sql,
                Effect.tap(Scope.extend(sql.reserve, scope), (reserved) =>
                  reserved.executeUnprepared("BEGIN", [], undefined)
                )
              )
              const exit = yield* restore(effect).pipe(
                Effect.provideService(SqlClient.TransactionConnection, [connection, 0]),
                Effect.exit
              )
              const ending = Exit.isSuccess(exit)
                ? connection.isOpen
                  ? Effect.flatMap(connection.sendDeferred, (opened) =>
                      opened.executeUnprepared("COMMIT", [], undefined)
                    )
                  : // Never opened: what waits is the whole transaction, and one statement is atomic by itself.
                    (connection.takeDeferred() ?? Effect.void)
                : connection.ifOpen((opened) => opened.executeUnprepared("ROLLBACK", [], undefined))
              const ended = yield* Effect.exit(ending)
              yield* Scope.close(scope, exit)
              return yield* Effect.zipRight(Effect.orDie(ended), exit)
            }).pipe(Effect.withSpan("sql.transaction", { kind: "client", captureStackTrace: false }))
          )
    )
