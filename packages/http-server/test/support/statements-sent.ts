import { Effect } from "effect"
import Pg from "pg"
import { vi } from "vitest"

/** A statement's text as sent, its whitespace runs made single spaces. */
const textOf = (query: unknown) =>
  (typeof query === "string" ? query : (query as { text: string }).text).trim().replace(/\s+/g, " ")

/**
 * Runs `effect` and answers its result with the statements node-postgres sent meanwhile (`BEGIN` and `COMMIT`
 * included): every statement of every pool goes through `pg.Client.prototype.query`.
 */
export const statementsSentBy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => vi.spyOn(Pg.Client.prototype, "query")),
    (spy) => Effect.map(effect, (result) => ({ result, statements: spy.mock.calls.map(([query]) => textOf(query)) })),
    (spy) => Effect.sync(() => spy.mockRestore())
  )
