import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** Effects waiting for the current Transactor transaction to commit; `undefined` outside of one. */
const waiting = FiberRef.unsafeMake<ReadonlyArray<Effect.Effect<void>> | undefined>(undefined)

/**
 * Runs `effect` once the enclosing transaction (opened through the Transactor) has committed, and never when it
 * rolls back; outside of a transaction, runs it at once. For signals that must not be seen before the data is.
 */
export const afterCommit = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(waiting), (queued) =>
    queued === undefined ? effect : FiberRef.set(waiting, [...queued, effect])
  )

/**
 * Wraps a transaction so that the effects queued with {@link afterCommit} inside it run when it has succeeded.
 * A nested transaction leaves them to the outermost one, which is the one that commits.
 */
export const runAfterCommit = <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(waiting), (outer) =>
    outer !== undefined
      ? transaction
      : Effect.locally(Effect.zip(transaction, FiberRef.get(waiting)), waiting, []).pipe(
          Effect.flatMap(([result, queued]) => Effect.as(Effect.all(queued ?? [], { discard: true }), result))
        )
  )
