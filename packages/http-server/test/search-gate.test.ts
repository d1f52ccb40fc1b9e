import { describe, expect, it } from "@effect/vitest"
import { ServiceUnavailable } from "@talab/core"
import { Deferred, Duration, Effect, Exit, Fiber, TestClock } from "effect"
import { makeSearchGate, SEARCH_RETRY_AFTER_SECONDS } from "../src/search/SearchGate.js"
import { blockingWork, settle } from "./support/blocking-work.js"

describe("SearchGate", () => {
  it.effect("runs at most `concurrency` searches; the others wait their turn in arrival order", () =>
    Effect.gen(function* () {
      const gate = yield* makeSearchGate({ concurrency: 2, maxWait: Duration.seconds(5) })
      const { state, work: search } = blockingWork()
      const releases = yield* Effect.all(Array.from({ length: 4 }, () => Deferred.make<void>()))
      const fibers = []
      for (const id of [0, 1, 2, 3]) {
        fibers.push(yield* Effect.fork(gate.run(search(id, releases[id]!))))
        yield* settle
      }
      expect(state.started).toEqual([0, 1])

      yield* Deferred.succeed(releases[1]!, undefined)
      expect(yield* Fiber.join(fibers[1]!)).toBe(1)
      yield* settle
      expect(state.started).toEqual([0, 1, 2])

      for (const release of releases) yield* Deferred.succeed(release, undefined)
      expect(yield* Effect.all(fibers.map(Fiber.join))).toEqual([0, 1, 2, 3])
      expect(state.peak).toBe(2)
    })
  )

  it.effect("answers a search still waiting after `maxWait` with 503 and Retry-After, never running it", () =>
    Effect.gen(function* () {
      const gate = yield* makeSearchGate({ concurrency: 1, maxWait: Duration.seconds(5) })
      const { state, work: search } = blockingWork()
      const releases = yield* Effect.all(Array.from({ length: 3 }, () => Deferred.make<void>()))
      const holder = yield* Effect.fork(gate.run(search(0, releases[0]!)))
      const waiter = yield* Effect.fork(Effect.exit(gate.run(search(1, releases[1]!))))
      yield* settle

      yield* TestClock.adjust(Duration.millis(4_999))
      yield* settle
      expect(waiter.unsafePoll()).toBeNull()

      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* Fiber.join(waiter)).toEqual(
        Exit.fail(new ServiceUnavailable({ retryAfterSeconds: SEARCH_RETRY_AFTER_SECONDS }))
      )
      expect(state.started).toEqual([0])

      // The refused search took no turn: once the first ends, the next one runs at once.
      yield* Deferred.succeed(releases[0]!, undefined)
      yield* Fiber.join(holder)
      yield* Deferred.succeed(releases[2]!, undefined)
      expect(yield* gate.run(search(2, releases[2]!))).toBe(2)
      expect(state.started).toEqual([0, 2])
    })
  )

  it.effect("gives its turn back when a running search is interrupted or fails", () =>
    Effect.gen(function* () {
      const gate = yield* makeSearchGate({ concurrency: 1, maxWait: Duration.seconds(5) })
      const { work: search } = blockingWork()
      const never = yield* Deferred.make<void>()
      const interrupted = yield* Effect.fork(gate.run(search(0, never)))
      yield* settle
      yield* Fiber.interrupt(interrupted)

      expect(yield* Effect.exit(gate.run(Effect.fail("broken" as const)))).toEqual(Exit.fail("broken"))
      expect(yield* gate.run(Effect.succeed("ran"))).toBe("ran")
    })
  )
})
