import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeMissFlights } from "../src/readcache/MissFlights.js"
import { settle } from "./support/blocking-work.js"

/**
 * A read as the read cache's middleware makes it: wait for a miss of its route begun under the current
 * generation and take its answer, else look in what is kept, and on a miss answer it (counted), keep what it
 * read and share it with the reads that waited.
 */
const reads = (gate: Deferred.Deferred<void>) =>
  Effect.sync(() => {
    const flights = makeMissFlights()
    const kept = new Map<string, string>()
    const answered: Array<number> = []
    let generation = 0
    const read = (routeKey: string) =>
      Effect.gen(function* () {
        const shared = yield* flights.awaitCurrent(routeKey, generation)
        if (shared !== undefined) return shared
        const hit = kept.get(routeKey)
        if (hit !== undefined) return hit
        const startedUnder = generation
        return yield* flights.lead(
          routeKey,
          startedUnder,
          Effect.gen(function* () {
            answered.push(startedUnder)
            yield* Deferred.await(gate)
            const answer = `${routeKey} read under ${startedUnder}`
            // Kept only when no drop came since the read began, as ReadCache.store decides.
            if (generation === startedUnder) kept.set(routeKey, answer)
            return answer
          }),
          (answer) => answer
        )
      })
    const drop = () => {
      generation++
      kept.clear()
    }
    return { flights, read, drop, answered, kept }
  })

describe("the read cache's misses in flight", () => {
  it.effect("answer a route once for every read of it that arrives meanwhile", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const { flights, read, answered } = yield* reads(gate)
      const fibers = yield* Effect.forEach(Array.from({ length: 10 }), () => Effect.fork(read("/requests")))
      yield* settle
      const other = yield* Effect.fork(read("/requests?page=2"))
      yield* settle
      expect(answered).toEqual([0, 0])

      yield* Deferred.succeed(gate, undefined)
      expect(new Set(yield* Effect.forEach(fibers, Fiber.join))).toEqual(new Set(["/requests read under 0"]))
      expect(yield* Fiber.join(other)).toBe("/requests?page=2 read under 0")
      expect(answered).toEqual([0, 0])
      expect(flights.size()).toBe(0)
    })
  )

  it.effect("never make a read that arrives after a drop wait for a miss begun before it", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const { read, drop, answered } = yield* reads(gate)
      const before = yield* Effect.fork(read("/requests"))
      yield* settle
      // A write confirmed: what the first read finds may not show it, so the next one reads for itself.
      drop()
      const after = yield* Effect.fork(read("/requests"))
      const alsoAfter = yield* Effect.fork(read("/requests"))
      yield* settle
      expect(answered).toEqual([0, 1])

      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(before)).toBe("/requests read under 0")
      expect(yield* Fiber.join(after)).toBe("/requests read under 1")
      expect(yield* Fiber.join(alsoAfter)).toBe("/requests read under 1")
    })
  )

  it.effect("share their answer with the reads that waited, even when a drop while they ran kept it from memory", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const { read, drop, answered, kept } = yield* reads(gate)
      const leader = yield* Effect.fork(read("/requests"))
      yield* settle
      const waiters = yield* Effect.forEach(Array.from({ length: 5 }), () => Effect.fork(read("/requests")))
      yield* settle
      // A write confirmed while they wait: a read it ran beside, which may show it or not.
      drop()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(leader)).toBe("/requests read under 0")
      expect(new Set(yield* Effect.forEach(waiters, Fiber.join))).toEqual(new Set(["/requests read under 0"]))
      expect(answered).toEqual([0])
      expect(kept.size).toBe(0)
    })
  )

  it.effect("release the reads waiting behind a miss that was interrupted, which then answer for themselves", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const { flights, read, answered } = yield* reads(gate)
      const leader = yield* Effect.fork(read("/requests"))
      yield* settle
      const waiter = yield* Effect.fork(read("/requests"))
      yield* settle
      yield* Fiber.interrupt(leader)
      yield* settle
      expect(answered).toEqual([0, 0])
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(waiter)).toBe("/requests read under 0")
      expect(flights.size()).toBe(0)
    })
  )
})
