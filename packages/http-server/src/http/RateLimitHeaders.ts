import type { RateLimitDecision } from "@talab/core"
import * as Effect from "effect/Effect"
import { requestState } from "./RequestState.js"

/*
 * The tightest rate-limit decision of each request is kept in its RequestState and read when the response is
 * written, so every counted response carries the RateLimit-* headers (and 429s Retry-After), whoever built it.
 */

/** A refusal, then the fewest calls left, then the longest wait: the limit the client should heed. */
const tighter = (a: RateLimitDecision, b: RateLimitDecision) => {
  if (a.allowed !== b.allowed) return a.allowed ? b : a
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b
  return a.resetMs >= b.resetMs ? a : b
}

/** Records a decision of a limit the request was counted against; the headers show the tightest one. */
export const recordRateLimit = (decision: RateLimitDecision): Effect.Effect<void> =>
  Effect.map(requestState, (state) => {
    state.rateLimit = state.rateLimit === undefined ? decision : tighter(state.rateLimit, decision)
  })

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000))

/** The headers of a request's recorded decision, if it was counted. */
export const rateLimitHeaders = (decision: RateLimitDecision | undefined): Record<string, string> => {
  if (decision === undefined) return {}
  const headers: Record<string, string> = {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(seconds(decision.allowed ? decision.resetMs : decision.retryAfterMs))
  }
  if (!decision.allowed) headers["retry-after"] = String(Math.max(1, seconds(decision.retryAfterMs)))
  return headers
}
