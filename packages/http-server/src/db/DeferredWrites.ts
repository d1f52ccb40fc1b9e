import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment, Statement } from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
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
 *
 * Rows inserted into one table by several waiting writes go as one multi-row insert, and rows of one table
 * updated (each by its id, the same columns) by several as one update: a statement of a hundred CTEs costs
 * PostgreSQL more to plan than to run. As they go in one statement either way, nothing else changes.
 */

type Row = Readonly<Record<string, unknown>>

/** A write that waits: a statement, or rows to insert or update, which are sent with their table's others. */
export type Write =
  | { readonly _tag: "Statement"; readonly statement: Statement<unknown>; readonly keys: ReadonlyArray<string> }
  | {
      readonly _tag: "Insert"
      readonly table: string
      readonly rows: ReadonlyArray<Row>
      readonly keys: ReadonlyArray<string>
    }
  | {
      readonly _tag: "Update"
      readonly table: string
      /** The row, by its `id`: every column but `unchanged` is set. */
      readonly row: Row & { readonly id: string }
      readonly unchanged: ReadonlyArray<string>
      readonly keys: ReadonlyArray<string>
    }

/** A statement that waits, under `key` if another write of the transaction could touch its row. */
export const statementWrite = (statement: Statement<unknown>, key?: string): Write => ({
  _tag: "Statement",
  statement,
  keys: key === undefined ? [] : [key]
})

/** New rows of `table` (all with the same columns), each under its key in `keys` if it has one. */
export const insertWrite = (table: string, rows: ReadonlyArray<Row>, keys: ReadonlyArray<string> = []): Write => ({
  _tag: "Insert",
  table,
  rows,
  keys
})

/** The row of `table` with the row's `id` set to the row (but its `unchanged` columns), under `${table} ${id}`. */
export const updateWrite = (
  table: string,
  row: Row & { readonly id: string },
  unchanged: ReadonlyArray<string>
): Write => ({ _tag: "Update", table, row, unchanged, keys: [`${table} ${row.id}`] })

/**
 * The connection a lazy transaction puts where `sql.withTransaction` puts its own: the first statement run on it
 * acquires a pooled connection and begins the transaction; each statement first sends the deferred writes.
 */
class LazyTransactionConnection implements Connection {
  private deferred: Array<Write> = []
  private keys = new Set<string>()
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

  defer(write: Write): Effect.Effect<void, SqlError> {
    return Effect.suspend(() => {
      const clash = write.keys.some((key) => this.keys.has(key))
      return Effect.zipRight(
        clash ? this.sendDeferred : Effect.void,
        Effect.sync(() => {
          this.deferred.push(write)
          for (const key of write.keys) this.keys.add(key)
        })
      )
    })
  }

  /** The deferred writes as one statement, and none are left waiting; `undefined` when none were. */
  takeDeferred(): Statement<unknown> | undefined {
    const statements = this.takeDeferredStatements()
    return statements.length === 0 ? undefined : asOneStatement(this.sql, statements)
  }

  /** The deferred writes as statements, and none are left waiting. */
  takeDeferredStatements(): Array<Statement<unknown>> {
    const writes = this.deferred
    this.deferred = []
    this.keys = new Set()
    return writes.length === 0 ? [] : statementsOf(this.sql, writes)
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

const COLUMN = /^[a-z_][a-z0-9_]*$/

/** Column names written into a statement's text: only plain lower-case names. */
const safeColumns = (write: string, columns: ReadonlyArray<string>) => {
  const unsafe = columns.find((column) => !COLUMN.test(column))
  if (unsafe !== undefined) throw new Error(`deferred ${write}: column name ${JSON.stringify(unsafe)}`)
  return columns
}

/** The rows updated by id as one statement: each column but `unchanged` set from the row of the same id. */
const updateStatement = (
  sql: SqlClient.SqlClient,
  table: string,
  rows: ReadonlyArray<Row & { readonly id: string }>,
  unchanged: ReadonlyArray<string>
): Statement<unknown> => {
  if (rows.length === 1) {
    return sql`UPDATE ${sql(table)} SET ${sql.update(rows[0]!, [...unchanged])} WHERE id = ${rows[0]!.id}`
  }
  const columns = safeColumns(
    "update",
    Object.keys(rows[0]!).filter((column) => !unchanged.includes(column))
  )
  const set = columns.map((column) => `${column} = v.${column}`).join(", ")
  // The table's own row type decodes each value as its column's type.
  return sql`
    UPDATE ${sql(table)} AS t SET ${sql.literal(set)}
    FROM jsonb_populate_recordset(NULL::${sql(table)}, ${JSON.stringify(rows)}::jsonb) AS v
    WHERE t.id = v.id`
}

/**
 * The rows inserted into `table` as one statement whose text is the same whatever their number (a batch's
 * statement stays one text at every size): the rows as one JSON parameter, each value read as its column's type.
 */
const insertStatement = (sql: SqlClient.SqlClient, table: string, rows: ReadonlyArray<Row>): Statement<unknown> => {
  const columns = safeColumns("insert", Object.keys(rows[0]!)).join(", ")
  return sql`INSERT INTO ${sql(table)} (${sql.literal(columns)})
    SELECT ${sql.literal(columns)} FROM jsonb_populate_recordset(NULL::${sql(table)}, ${JSON.stringify(rows)}::jsonb)`
}

/** The writes as statements: one per statement written, one per table for the rows inserted or updated. */
const statementsOf = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>): Array<Statement<unknown>> => {
  /** Rows of one table going as one insert or one update, at the place of the first write of them. */
  interface Rows {
    readonly write: Write & { readonly _tag: "Insert" | "Update" }
    readonly rows: Array<Row>
  }
  const gathered: Array<{ readonly statement: Statement<unknown> } | Rows> = []
  const byShape = new Map<string, Rows>()
  for (const write of writes) {
    if (write._tag === "Statement") {
      gathered.push({ statement: write.statement })
      continue
    }
    const rows = write._tag === "Insert" ? write.rows : [write.row]
    if (rows.length === 0) continue
    const unchanged = write._tag === "Update" ? write.unchanged.join(",") : ""
    const shape = `${write._tag} ${write.table} ${Object.keys(rows[0]!).join(",")} ${unchanged}`
    const known = byShape.get(shape)
    if (known !== undefined) {
      known.rows.push(...rows)
      continue
    }
    const group: Rows = { write, rows: [...rows] }
    byShape.set(shape, group)
    gathered.push(group)
  }
  return gathered.map((group) =>
    "statement" in group
      ? group.statement
      : group.write._tag === "Insert"
        ? insertStatement(sql, group.write.table, group.rows)
        : // Every row of an update group came from an `updateWrite`, which has an id.
          updateStatement(
            sql,
            group.write.table,
            group.rows as Array<Row & { readonly id: string }>,
            group.write.unchanged
          )
  )
}

/** A statement as the `i`th of a statement's leading data-modifying CTEs. */
const asCte = (sql: SqlClient.SqlClient, statement: Statement<unknown>, i: number) =>
  sql`${sql(`deferred_${i}`)} AS (${statement})`

/** Statements as one of data-modifying CTEs, the last one the statement's body. */
const asOneStatement = (
  sql: SqlClient.SqlClient,
  statements: ReadonlyArray<Statement<unknown>>
): Statement<unknown> => {
  if (statements.length === 1) return statements[0]!
  const leading = statements.slice(0, -1).map((statement, i) => asCte(sql, statement, i))
  return sql`WITH ${sql.join(", ", false)(leading)} ${statements.at(-1)!}`
}

/**
 * Runs `writes` as one statement now, or, in the outermost transaction opened by {@link lazyTransaction}, when
 * the next statement runs or the transaction ends (see the rules above). Each is an insert, or an update of
 * the row its `key` names.
 */
export const deferredWrites = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>): Effect.Effect<void, SqlError> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
    if (transaction._tag === "Some") {
      const [connection, depth] = transaction.value
      if (connection instanceof LazyTransactionConnection && depth === 0) {
        return Effect.forEach(writes, (write) => connection.defer(write), { discard: true })
      }
    }
    return writes.length === 0 ? Effect.void : Effect.asVoid(asOneStatement(sql, statementsOf(sql, writes)))
  })

/**
 * Runs the statement `build` makes with the writes waiting in the outermost lazy transaction as its leading
 * data-modifying CTEs (`leading` is `deferred_0 AS (…), …, ` or nothing; `build` writes `WITH ${leading} its_own
 * AS (…) …`): one round trip where sending them first would be two. They share the statement's snapshot, so
 * only for a statement that neither reads the rows they write nor writes a row they write.
 */
export const withWaitingWrites = <A>(
  sql: SqlClient.SqlClient,
  build: (leading: Fragment) => Statement<A>
): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
    const [connection, depth] = Option.getOrElse(transaction, () => [undefined, 0] as const)
    const waiting =
      connection instanceof LazyTransactionConnection && depth === 0 ? connection.takeDeferredStatements() : []
    const leading = waiting.map((statement, i) => sql`${asCte(sql, statement, i)}, `)
    return build(leading.length === 0 ? sql.literal("") : sql.join("", false)(leading))
  })

/**
 * `sql.withTransaction`, opened on its first statement and with {@link deferredWrites} sent together. Nested in
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
