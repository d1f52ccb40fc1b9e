import { ServiceUnavailable } from "@talab/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** How many searches may hold a database connection at once, and how long one may wait for its turn. */
export interface SearchGateSettings {
  readonly concurrency: number
  readonly maxWait: Duration.DurationInput
}

/*
 * A search's cost grows with the requests its words find (docs/SCALING.md, "Search at a million requests"):
 * seconds for a common word in a million requests. Unbounded, a burst of them held every connection of the pool,
 * and the calls queued behind them waited out the pool's connect timeout and were answered 503 as if the database
 * were down. Searches therefore take turns here, outside the pool: at most SEARCH_GATE.concurrency of the pool's
 * 10 connections, the rest always free for every other call.
 */
export const SEARCH_GATE: SearchGateSettings = { concurrency: 4, maxWait: Duration.seconds(5) }

/** Seconds a search refused for a full gate is told to wait. */
export const SEARCH_RETRY_AFTER_SECONDS = 5

/**
 * Runs a search when one of `concurrency` turns is free, in arrival order; a search still waiting after `maxWait`
 * fails with {@link ServiceUnavailable} (503 with Retry-After) instead of waiting on.
 */
export const makeSearchGate = (settings: SearchGateSettings) =>
  Effect.map(Effect.makeSemaphore(settings.concurrency), (turns) => {
    const run = <A, E, R>(search: Effect.Effect<A, E, R>): Effect.Effect<A, E | ServiceUnavailable, R> =>
      Effect.uninterruptibleMask((restore) =>
        restore(turns.take(1)).pipe(
          Effect.timeoutFail({
            duration: settings.maxWait,
            onTimeout: () => new ServiceUnavailable({ retryAfterSeconds: SEARCH_RETRY_AFTER_SECONDS })
          }),
          Effect.zipRight(restore(search).pipe(Effect.ensuring(turns.release(1))))
        )
      )
    return { run } as const
  })
