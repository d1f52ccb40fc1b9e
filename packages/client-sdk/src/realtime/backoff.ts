/** How long to wait between reconnection attempts. */
export interface BackoffOptions {
  /** Delay before the first retry, in ms (default 500). */
  readonly initialDelayMs?: number
  /** The longest delay, in ms (default 30 000). */
  readonly maxDelayMs?: number
  /** Growth factor per failed attempt (default 2). */
  readonly factor?: number
}

/**
 * Exponential backoff with "equal jitter": half the exponential delay, plus a random part of the other
 * half, so many clients dropped at once do not come back all at the same moment.
 */
export const backoffDelay = (attempt: number, options: BackoffOptions = {}, random: () => number = Math.random) => {
  const initial = options.initialDelayMs ?? 500
  const max = options.maxDelayMs ?? 30_000
  const factor = options.factor ?? 2
  const exponential = Math.min(max, initial * factor ** Math.max(0, attempt))
  return exponential / 2 + random() * (exponential / 2)
}
