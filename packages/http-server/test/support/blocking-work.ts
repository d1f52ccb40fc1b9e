import { Deferred, Effect } from "effect"

/**
 * Work for testing a gate: each piece runs until its `release` is completed, and the state records how many run at
 * once, the most that ever did, and in which order they started.
 */
export const blockingWork = () => {
  const state = { running: 0, peak: 0, started: [] as Array<number> }
  const work = (id: number, release: Deferred.Deferred<void>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        state.running += 1
        state.peak = Math.max(state.peak, state.running)
        state.started.push(id)
      }),
      () => Effect.as(Deferred.await(release), id),
      () =>
        Effect.sync(() => {
          state.running -= 1
        })
    )
  return { state, work }
}

/** Lets every fiber that can run do so (a freed permit wakes its waiter a few scheduler turns later). */
export const settle = Effect.repeatN(Effect.yieldNow(), 20)
