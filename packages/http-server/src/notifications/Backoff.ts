import * as Duration from "effect/Duration"

export interface BackoffPolicy {
  /** Wait after the first failed attempt; each further one doubles it. */
  readonly base: Duration.DurationInput
  /** Longest wait, whatever the attempt number or the provider's Retry-After. */
  readonly max: Duration.DurationInput
}

/**
 * Milliseconds to wait before attempt `attempts + 1`: exponential in the attempts made, with "equal jitter"
 * (between half and all of the exponential step) so that devices failing together do not retry together, and
 * never sooner than the provider's Retry-After. `random` is in [0, 1).
 */
export const retryDelayMs = (
  policy: BackoffPolicy,
  attempts: number,
  random: number,
  retryAfterMs: number | undefined
): number => {
  const maxMs = Duration.toMillis(policy.max)
  const exponential = Math.min(maxMs, Duration.toMillis(policy.base) * 2 ** Math.max(0, attempts - 1))
  const jittered = Math.round(exponential / 2 + (exponential / 2) * random)
  return Math.min(maxMs, Math.max(jittered, retryAfterMs ?? 0))
}
