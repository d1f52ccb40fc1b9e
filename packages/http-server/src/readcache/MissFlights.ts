import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"

/** A miss being answered, begun under `generation`; `done` with what it can share once it has answered. */
interface Flight<S> {
  readonly generation: number
  readonly done: Deferred.Deferred<S | undefined>
}

/**
 * The misses of the read cache being answered, by route. A read of a route whose miss is being answered waits
 * for it and takes what it shares (or looks again), so a route a write dropped is read from the database once,
 * not once per caller, even while further writes keep dropping it. It waits only behind a miss begun under the
 * cache's current generation (no drop since it began): that one read the database after every write confirmed
 * before the waiting read arrived, so a caller still reads their own write; a write confirmed while it waits is
 * one its read ran beside, which it may or may not see.
 */
export const makeMissFlights = <S>() => {
  const flights = new Map<string, Flight<S>>()
  return {
    /** What the miss of `routeKey` begun under `generation` shares, once it has answered, if one is running. */
    awaitCurrent: (routeKey: string, generation: number): Effect.Effect<S | undefined> =>
      Effect.suspend(() => {
        const flight = flights.get(routeKey)
        return flight !== undefined && flight.generation === generation
          ? Deferred.await(flight.done)
          : Effect.succeed(undefined)
      }),
    /**
     * Runs `answer`, the miss of `routeKey` under `generation`, as the one others wait for and share (`share`
     * says what of its result they may take), unless one begun under the same generation is already running:
     * then it just runs.
     */
    lead: <A, E, R>(
      routeKey: string,
      generation: number,
      answer: Effect.Effect<A, E, R>,
      share: (result: A) => S | undefined
    ): Effect.Effect<A, E, R> =>
      // Registered and released uninterruptibly, so no waiter is left behind a miss that never ends.
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          const current = flights.get(routeKey)
          if (current !== undefined && current.generation === generation) return restore(answer)
          const own: Flight<S> = { generation, done: Deferred.unsafeMake<S | undefined>(FiberId.none) }
          flights.set(routeKey, own)
          let shared: S | undefined
          return Effect.ensuring(
            Effect.tap(restore(answer), (result) =>
              Effect.sync(() => {
                shared = share(result)
              })
            ),
            Effect.suspend(() => {
              if (flights.get(routeKey) === own) flights.delete(routeKey)
              return Deferred.succeed(own.done, shared)
            })
          )
        })
      ),
    size: () => flights.size
  } as const
}
