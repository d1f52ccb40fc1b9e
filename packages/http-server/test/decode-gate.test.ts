import { describe, expect, it } from "@effect/vitest"
import { ServiceUnavailable } from "@talab/core"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { DECODE_RETRY_AFTER_SECONDS, makeDecodeGate } from "../src/images/DecodeGate.js"
import { blockingWork, settle } from "./support/blocking-work.js"

describe("DecodeGate", () => {
  it.effect("runs at most `concurrency` decodings, queues `queue` more in order, and refuses the next at once", () =>
    Effect.gen(function* () {
      const gate = yield* makeDecodeGate({ concurrency: 2, queue: 2 })
      const { state, work: decode } = blockingWork()
      const releases = yield* Effect.all(Array.from({ length: 5 }, () => Deferred.make<void>()))
      const fibers = yield* Effect.all(
        [0, 1, 2, 3].map((id) => Effect.fork(gate.run(decode(id, releases[id]!)))),
        { concurrency: "unbounded" }
      )
      yield* settle
      expect(state.started).toEqual([0, 1])

      const refused = yield* Effect.exit(gate.run(decode(4, releases[4]!)))
      expect(refused).toEqual(Exit.fail(new ServiceUnavailable({ retryAfterSeconds: DECODE_RETRY_AFTER_SECONDS })))
      expect(state.started).toEqual([0, 1])

      yield* Deferred.succeed(releases[0]!, undefined)
      expect(yield* Fiber.join(fibers[0]!)).toBe(0)
      yield* settle
      expect(state.started).toEqual([0, 1, 2])

      // A slot freed up, so one more may wait again.
      const fifth = yield* Effect.fork(gate.run(decode(4, releases[4]!)))
      for (const release of releases) yield* Deferred.succeed(release, undefined)
      expect(yield* Effect.all([...fibers.slice(1), fifth].map(Fiber.join))).toEqual([1, 2, 3, 4])
      expect(state.peak).toBe(2)
      expect(state.started).toEqual([0, 1, 2, 3, 4])
    })
  )

  it.effect("gives the place back when a waiting upload is abandoned", () =>
    Effect.gen(function* () {
      const gate = yield* makeDecodeGate({ concurrency: 1, queue: 1 })
      const { work: decode } = blockingWork()
      const release = yield* Deferred.make<void>()
      const running = yield* Effect.fork(gate.run(decode(0, release)))
      const waiting = yield* Effect.fork(gate.run(decode(1, release)))
      yield* settle
      expect(Exit.isFailure(yield* Effect.exit(gate.run(decode(2, release))))).toBe(true)
      yield* Fiber.interrupt(waiting)
      const replacement = yield* Effect.fork(gate.run(decode(3, release)))
      yield* Deferred.succeed(release, undefined)
      expect([yield* Fiber.join(running), yield* Fiber.join(replacement)]).toEqual([0, 3])
    })
  )
})
