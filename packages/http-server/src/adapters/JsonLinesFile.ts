import { appendFile, mkdir } from "node:fs/promises"
import { dirname } from "node:path"
import * as Effect from "effect/Effect"

/**
 * Makes a function that appends one record to `path` as a JSON line, creating the folder if needed.
 *
 * Appends through one returned function are serialized, so lines never interleave: give each file one appender.
 * A failed append is logged as `failureMessage` (annotated with the path) and otherwise ignored, because the
 * outboxes that use it record a delivery that has already happened and must not change its outcome.
 */
export const appender = (
  path: string,
  failureMessage: string
): Effect.Effect<(record: unknown) => Effect.Effect<void>> =>
  Effect.map(
    Effect.makeSemaphore(1),
    (writeLock) => (record) =>
      Effect.tryPromise(async () => {
        await mkdir(dirname(path), { recursive: true })
        await appendFile(path, `${JSON.stringify(record)}\n`, "utf8")
      }).pipe(
        writeLock.withPermits(1),
        Effect.catchAll((error) => Effect.logError(failureMessage, error).pipe(Effect.annotateLogs({ path })))
      )
  )
