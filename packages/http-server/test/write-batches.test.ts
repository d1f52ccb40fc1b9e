import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, HashMap, Logger } from "effect"
import { parsePrometheusText } from "../../../test-support/prometheus.js"
import { makeWriteBatches } from "../src/db/WriteBatches.js"
import { startRecording } from "../src/telemetry/Metrics.js"
import { prometheusText } from "../src/telemetry/Prometheus.js"

/*
 * The gatherer every batched write shares (db/WriteBatches.ts), with runners of this test's: what goes in one
 * batch, what each caller is answered, and what an operator sees of it (the batch counter and the fallback's log
 * line). The stores themselves are tested with PostgreSQL in apps/server's *-batching tests.
 */

const batchesCounted = (kind: string, outcome: string) =>
  parsePrometheusText(prometheusText()).value("talab_write_batches_total", { kind, outcome }) ?? 0

/** Runs `effect` with metrics recorded and log lines kept, answering both. */
const observed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ annotations, message }) => {
      lines.push({ message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
    })
    const stop = startRecording()
    const result = yield* effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.ensuring(Effect.sync(stop))
    )
    return { result, lines }
  })

/** Batch limits for the tests that are not about them. */
const LIMITS = { maxBatch: 64, maxInFlight: 1, aloneInFlight: 4 }

/** Items written at the same moment: each its own caller, all started before any is answered. */
const writeTogether = <A, E>(write: (item: number) => Effect.Effect<A, E>, items: ReadonlyArray<number>) =>
  Effect.forEach(items, (item) => Effect.exit(write(item)), { concurrency: "unbounded" })

describe("write batches", () => {
  it.effect("store writes that arrive together in one batch, each caller answered with its own outcome", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const before = batchesCounted("requests", "stored")
      const { result } = yield* observed(
        Effect.gen(function* () {
          const write = yield* makeWriteBatches<number, number, string>("requests", LIMITS, {
            batch: (items) =>
              Effect.sync(() => {
                batches.push(items)
                return items.map((item) => (item === 3 ? Exit.fail("three refused") : Exit.succeed(item * 10)))
              }),
            alone: () => Effect.die("a write went alone")
          })
          return yield* writeTogether(write, [1, 2, 3, 4, 5])
        })
      )
      expect(batches).toEqual([[1, 2, 3, 4, 5]])
      expect(result).toEqual([
        Exit.succeed(10),
        Exit.succeed(20),
        Exit.fail("three refused"),
        Exit.succeed(40),
        Exit.succeed(50)
      ])
      expect(batchesCounted("requests", "stored")).toBe(before + 1)
    })
  )

  it.effect("gather what arrives while a batch is written into the next one, up to the batch's limit", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const alone: Array<number> = []
      const firstHeld = yield* Deferred.make<void>()
      const firstStarted = yield* Deferred.make<void>()
      const write = yield* makeWriteBatches<number, number, string>(
        "messages",
        { maxBatch: 3, maxInFlight: 1, aloneInFlight: 4 },
        {
          batch: (items) =>
            Effect.gen(function* () {
              batches.push(items)
              if (batches.length === 1) {
                yield* Deferred.succeed(firstStarted, undefined)
                yield* Deferred.await(firstHeld)
              }
              return items.map((item) => Exit.succeed(item))
            }),
          alone: (item) =>
            Effect.sync(() => {
              alone.push(item)
              return item
            })
        }
      )
      const first = yield* Effect.fork(writeTogether(write, [1, 2]))
      yield* Deferred.await(firstStarted)
      // Arrive one by one, in turns of their own, while the first batch is held: none may start a batch.
      const later: Array<Fiber.RuntimeFiber<Exit.Exit<number, string>>> = []
      for (const item of [3, 4, 5, 6, 7]) {
        later.push(yield* Effect.fork(Effect.exit(write(item))))
        yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      }
      expect(batches).toEqual([[1, 2]])
      yield* Deferred.succeed(firstHeld, undefined)
      expect(yield* Fiber.join(first)).toEqual([Exit.succeed(1), Exit.succeed(2)])
      expect(yield* Effect.forEach(later, Fiber.join)).toEqual([3, 4, 5, 6, 7].map((item) => Exit.succeed(item)))
      // The waiting five go three and two, one batch after the other; none is written alone.
      expect(batches).toEqual([
        [1, 2],
        [3, 4, 5],
        [6, 7]
      ])
      expect(alone).toEqual([])
    })
  )

  it.effect("store each write alone when its batch fails as a whole, counted and logged by SQLSTATE only", () =>
    Effect.gen(function* () {
      const alone: Array<number> = []
      const before = batchesCounted("messages", "fell_back")
      // What @effect/sql's SqlError carries of PostgreSQL's: a code, and a detail that may quote a row.
      const deadlock = { _tag: "SqlError", cause: { code: "40P01", detail: "Key (phone)=(+966501234567)" } }
      const { lines, result } = yield* observed(
        Effect.gen(function* () {
          const write = yield* makeWriteBatches<number, number, string>("messages", LIMITS, {
            batch: () => Effect.die(deadlock),
            alone: (item) =>
              Effect.sync(() => {
                alone.push(item)
                return item * 10
              })
          })
          return yield* writeTogether(write, [1, 2, 3])
        })
      )
      expect(result).toEqual([Exit.succeed(10), Exit.succeed(20), Exit.succeed(30)])
      expect([...alone].sort()).toEqual([1, 2, 3])
      expect(batchesCounted("messages", "fell_back")).toBe(before + 1)
      const fallbacks = lines.filter((line) => JSON.stringify(line.message).includes("each write is stored alone"))
      expect(fallbacks.map((line) => line.annotations)).toEqual([{ kind: "messages", size: 3, reason: "40P01" }])
      expect(JSON.stringify(lines)).not.toContain("+966501234567")
    })
  )

  it.effect("send a write that arrives alone through the lone path, and count no batch", () =>
    Effect.gen(function* () {
      const before = ["stored", "fell_back"].map((outcome) => batchesCounted("offers", outcome))
      const { result } = yield* observed(
        Effect.gen(function* () {
          const write = yield* makeWriteBatches<number, number, string>("offers", LIMITS, {
            batch: () => Effect.die("a batch of one"),
            alone: (item) => Effect.succeed(item * 10)
          })
          return yield* Effect.exit(write(7))
        })
      )
      expect(result).toEqual(Exit.succeed(70))
      expect(["stored", "fell_back"].map((outcome) => batchesCounted("offers", outcome))).toEqual(before)
    })
  )

  it.effect("send a lone write through the batch when the kind asks, falling back alone, and count no batch", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const alone: Array<number> = []
      const before = ["stored", "fell_back"].map((outcome) => batchesCounted("messages", outcome))
      const { result } = yield* observed(
        Effect.gen(function* () {
          const write = yield* makeWriteBatches<number, number, string>("messages", LIMITS, {
            batch: (items) =>
              items[0] === 2
                ? Effect.die("refused as a whole")
                : Effect.sync(() => {
                    batches.push(items)
                    return items.map((item) => Exit.succeed(item * 10))
                  }),
            alone: (item) =>
              Effect.sync(() => {
                alone.push(item)
                return item * 100
              }),
            loneAsBatch: true
          })
          return [yield* Effect.exit(write(1)), yield* Effect.exit(write(2))]
        })
      )
      expect(result).toEqual([Exit.succeed(10), Exit.succeed(200)])
      expect(batches).toEqual([[1]])
      expect(alone).toEqual([2])
      expect(["stored", "fell_back"].map((outcome) => batchesCounted("messages", outcome))).toEqual(before)
    })
  )
})
