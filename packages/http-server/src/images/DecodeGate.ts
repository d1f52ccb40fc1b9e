import { ServiceUnavailable } from "@talab/core"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/AppConfig.js"

/** How many image decodings may run at once and how many may wait for one. */
export interface DecodeGateSettings {
  readonly concurrency: number
  readonly queue: number
}

/** Seconds a client refused for a full queue is told to wait: one decoding takes well under that. */
export const DECODE_RETRY_AFTER_SECONDS = 2

/**
 * Runs an image decoding when a slot is free, in arrival order; when `concurrency` run and `queue`
 * already wait, fails at once with {@link ServiceUnavailable} instead of holding one more upload in memory.
 */
export const makeDecodeGate = (settings: DecodeGateSettings) =>
  Effect.map(Effect.makeSemaphore(settings.concurrency), (slots) => {
    let admitted = 0
    const run = <A, E, R>(decoding: Effect.Effect<A, E, R>): Effect.Effect<A, E | ServiceUnavailable, R> =>
      Effect.suspend((): Effect.Effect<A, E | ServiceUnavailable, R> => {
        if (admitted >= settings.concurrency + settings.queue) {
          return Effect.fail(new ServiceUnavailable({ retryAfterSeconds: DECODE_RETRY_AFTER_SECONDS }))
        }
        admitted += 1
        return slots
          .withPermits(1)(decoding)
          .pipe(
            Effect.ensuring(
              Effect.sync(() => {
                admitted -= 1
              })
            )
          )
      })
    return { run } as const
  })

/** The server's one gate in front of sharp. */
export class DecodeGate extends Effect.Service<DecodeGate>()("Images/DecodeGate", {
  effect: Effect.gen(function* () {
    // sharp itself is loaded at the first image, set to one libvips thread per image (images/Sharp.ts).
    return yield* makeDecodeGate((yield* AppConfig).avatarDecoding)
  })
}) {}
