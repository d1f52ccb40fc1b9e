import type { RateLimitDecision } from "@talab/core"

/*
 * The last rate-limit decision of each request, read when the response is written so every counted
 * response carries the RateLimit-* headers (and 429s Retry-After), whoever built the response.
 */
const decisions = new WeakMap<object, RateLimitDecision>()

export const recordRateLimit = (request: object, decision: RateLimitDecision) => {
  decisions.set(request, decision)
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
