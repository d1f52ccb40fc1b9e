import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { AppConfig } from "../config/AppConfig.js"
import { recordWriteBatch, type WriteBatchKind } from "../telemetry/Metrics.js"

/** Whether the setting of a kind of write batch is on; on where no settings are given (an embedded server). */
export const batchingOn = (setting: (config: AppConfig["Type"]) => boolean) =>
  Effect.map(Effect.serviceOption(AppConfig), Option.match({ onNone: () => true, onSome: setting }))

export interface WriteBatchOptions {
  /** At most this many writes go in one batch. */
  readonly maxBatch: number
  /** Batches in flight at once (each holds a pool connection); more writes wait for one to end. */
  readonly maxInFlight: number
  /** Writes of a batch that failed as a whole, each stored alone, at once (each holds a pool connection). */
  readonly aloneInFlight: number
}

/**
 * Messages, requests and offers alike: 64 a batch at most, one batch of a kind at a time per instance, and the
 * writes of a failed batch 4 at a time. One batch at a time makes the next one gather everything that arrives
 * while it is written: under 50 clients messages went 25 to a batch instead of 10, for about a fifth more
 * messages a second and a lower p95 than with 4 batches at once (docs/SCALING.md, "One batch at a time").
 */
export const WRITE_BATCH_LIMITS: WriteBatchOptions = { maxBatch: 64, maxInFlight: 1, aloneInFlight: 4 }

export interface WriteBatchRunners<I, A, E> {
  /**
   * Stores a batch of two or more, in one transaction, answering each item in its place: its own result or its
   * own error. A failure of the whole (a row the database refused, a race its statements lost) rolls it back,
   * and every item is then written alone, so whatever failed fails alone.
   */
  readonly batch: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Exit.Exit<A, E>>, unknown>
  /** Writes one item in a transaction of its own: every item of a batch that failed, and a lone item by default. */
  readonly alone: (item: I) => Effect.Effect<A, E>
  /**
   * Whether an item that arrives alone goes through `batch` too (falling back to `alone` as a batch does), for
   * kinds whose batch statements are fewer than their lone write's.
   */
  readonly loneAsBatch?: boolean
}

interface Waiting<I, A, E> {
  readonly item: I
  readonly resume: (exit: Exit.Exit<A, E>) => void
}

/**
 * Why a batch failed as a whole, as an operator may read it: the database's SQLSTATE (never its message or
 * detail, which can quote a row's values), `race` for a batch that gave way to a write committed beside it,
 * else `other`.
 */
const fallbackReason = (cause: Cause.Cause<unknown>): string => {
  for (const failure of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    const code = (failure as { readonly cause?: { readonly code?: unknown } } | null)?.cause?.code
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code
    if ((failure as { readonly _tag?: unknown } | null)?._tag === "BatchFallback") return "race"
  }
  return "other"
}

/**
 * Concurrent writes gathered into batches: those that arrive within one turn of the event loop (well under a
 * millisecond), or while the batches before them are written (`maxInFlight` at once), up to `maxBatch`. Each
 * caller waits for its own answer. A write already taken into a batch is stored even when its caller stops
 * waiting, as a write already sent to the database would be. Each batch of two or more is counted
 * (`talab_write_batches_total`), and one that falls back is logged with its reason: a steady share of fallbacks
 * costs every write of them a second transaction.
 */
export const makeWriteBatches = <I, A, E>(
  kind: WriteBatchKind,
  options: WriteBatchOptions,
  runners: WriteBatchRunners<I, A, E>
) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    // Counted as batches only when two or more went together: a lone write's batch is not gathering anything.
    const count = (batch: ReadonlyArray<I>, outcome: "stored" | "fell_back") =>
      Effect.sync(() => {
        if (batch.length > 1) recordWriteBatch(kind, outcome)
      })
    const run = (batch: ReadonlyArray<I>) =>
      (batch.length === 1 && runners.loneAsBatch !== true
        ? Effect.map(Effect.exit(runners.alone(batch[0]!)), (exit) => [exit])
        : runners.batch(batch).pipe(
            Effect.tap(() => count(batch, "stored")),
            Effect.catchAllCause((cause) =>
              Effect.logWarning("Write batch failed as a whole; each write is stored alone").pipe(
                Effect.annotateLogs({ kind, size: batch.length, reason: fallbackReason(cause) }),
                Effect.zipRight(count(batch, "fell_back")),
                Effect.zipRight(
                  Effect.forEach(batch, (item) => Effect.exit(runners.alone(item)), {
                    concurrency: options.aloneInFlight
                  })
                )
              )
            )
          )
      ).pipe(Effect.catchAllCause((cause) => Effect.succeed(batch.map(() => Exit.failCause(cause) as Exit.Exit<A, E>))))

    const waiting: Array<Waiting<I, A, E>> = []
    let scheduled = false
    let inFlight = 0
    const flush = (): void => {
      scheduled = false
      while (waiting.length > 0 && inFlight < options.maxInFlight) {
        const batch = waiting.splice(0, options.maxBatch)
        inFlight++
        Runtime.runFork(runtime)(
          run(batch.map((w) => w.item)).pipe(
            Effect.tap((exits) =>
              Effect.sync(() => {
                for (const [i, w] of batch.entries()) w.resume(exits[i]!)
              })
            ),
            Effect.ensuring(
              Effect.sync(() => {
                inFlight--
                flush()
              })
            )
          )
        )
      }
    }

    /** Writes `item` with the others written at the same moment, answering its own result. */
    return (item: I): Effect.Effect<A, E> =>
      Effect.async<A, E>((resume) => {
        waiting.push({ item, resume })
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
  })
