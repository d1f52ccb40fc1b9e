import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"

/** A miss being answered, begun under `generation`; `done` once its answer is kept or refused. */
interface Flight {
  readonly generation: number
  readonly done: Deferred.Deferred<void>
}

/**
 * The misses of the read cache being answered, by route. A read of a route whose miss is being answered waits
 * for it and looks again, so a route a write dropped is read from the database once, not once per caller. It
 * waits only behind a miss begun under the cache's current generation (no drop since it began): what that one
 * keeps holds every write confirmed before the waiting read arrived, so a caller still reads their own write.
 */
export const makeMissFlights = () => {
  const flights = new Map<string, Flight>()
  return {
    /** Waits for the miss of `routeKey` begun under `generation`, if one is being answered. */
    awaitCurrent: (routeKey: string, generation: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const flight = flights.get(routeKey)
        return flight !== undefined && flight.generation === generation ? Deferred.await(flight.done) : Effect.void
      }),
    /**
     * Runs `answer`, the miss of `routeKey` under `generation`, as the one others wait for, unless one begun
     * under the same generation is already running (then it just runs).
     */
    lead: <A, E, R>(routeKey: string, generation: number, answer: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      // Registered and released uninterruptibly, so no waiter is left behind a miss that never ends.
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          const current = flights.get(routeKey)
          if (current !== undefined && current.generation === generation) return restore(answer)
          const own: Flight = { generation, done: Deferred.unsafeMake<void>(FiberId.none) }
          flights.set(routeKey, own)
          return Effect.ensuring(
            restore(answer),
            Effect.suspend(() => {
              if (flights.get(routeKey) === own) flights.delete(routeKey)
              return Deferred.succeed(own.done, undefined)
            })
          )
        })
      ),
    size: () => flights.size
  } as const
}
