import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** The verdict on one counted call. */
export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  /** Calls still allowed in the current window after this one. */
  readonly remaining: number
  /** Milliseconds until the window has room for one more call again (0 when there is room now). */
  readonly retryAfterMs: number
  /** Milliseconds until the window is wholly clear. */
  readonly resetMs: number
}

/**
 * Port: counts calls per key in a sliding window of `windowMs` and allows at most `limit` of them in
 * any such window. Time comes from Effect's Clock, so tests move it. Adapters: in-process, Redis.
 */
export class RateLimiter extends Context.Tag("@talab/core/RateLimiter")<
  RateLimiter,
  {
    readonly consume: (options: {
      readonly key: string
      readonly limit: number
      readonly windowMs: number
    }) => Effect.Effect<RateLimitDecision>
  }
>() {}
