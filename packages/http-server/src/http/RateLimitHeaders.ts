import type { RateLimitDecision } from "@talab/core"

/*
 * The tightest rate-limit decision of each request, read when the response is written so every counted
 * response carries the RateLimit-* headers (and 429s Retry-After), whoever built the response.
 */
const decisions = new WeakMap<object, RateLimitDecision>()

/** A refusal, then the fewest calls left, then the longest wait: the limit the client should heed. */
const tighter = (a: RateLimitDecision, b: RateLimitDecision) => {
  if (a.allowed !== b.allowed) return a.allowed ? b : a
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b
  return a.resetMs >= b.resetMs ? a : b
}

/** Records a decision of a limit the request was counted against; the headers show the tightest one. */
export const recordRateLimit = (request: object, decision: RateLimitDecision) => {
  const earlier = decisions.get(request)
  decisions.set(request, earlier === undefined ? decision : tighter(earlier, decision))
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000))

/** The headers of the request's recorded decision, if it was counted. */
export const rateLimitHeaders = (request: object): Record<string, string> => {
  const decision = decisions.get(request)
  if (decision === undefined) return {}
  const headers: Record<string, string> = {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(seconds(decision.allowed ? decision.resetMs : decision.retryAfterMs))
  }
  if (!decision.allowed) headers["retry-after"] = String(Math.max(1, seconds(decision.retryAfterMs)))
  return headers
}
