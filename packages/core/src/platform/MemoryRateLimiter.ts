import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type RateLimitDecision, RateLimiter } from "./RateLimiter.js"

/** Options for the in-process sliding-window log. */
export interface MemoryRateLimiterOptions {
  /** How often (by Effect's Clock, checked on each call) keys whose window has fully passed are dropped. Default 60 s. */
  readonly sweepIntervalMs?: number
}

/** The in-process limiter: the port plus a count of keys it holds, so tests can see idle keys go. */
export interface MemoryRateLimiter {
  readonly consume: RateLimiter["Type"]["consume"]
  readonly trackedKeyCount: Effect.Effect<number>
}

interface KeyLog {
  /** Times of allowed calls, oldest first. */
  readonly allowedAt: Array<number>
  windowMs: number
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000

/** A limit below one or a non-positive window is a configuration bug, not a runtime condition. */
const validateLimits = (limit: number, windowMs: number): Effect.Effect<void> =>
  Number.isInteger(limit) && limit >= 1 && Number.isFinite(windowMs) && windowMs > 0
    ? Effect.void
    : Effect.dieMessage(`RateLimiter: limit must be an integer >= 1 and windowMs > 0 (got ${limit}, ${windowMs})`)

/**
 * Builds a strict sliding-window log held in this process: no window of `windowMs` ever holds more than `limit`
 * allowed calls. Only for a single server instance (each process counts alone); use a shared store when several
 * instances share one budget.
 */
export const makeMemoryRateLimiter = (options: MemoryRateLimiterOptions = {}): Effect.Effect<MemoryRateLimiter> =>
  Effect.sync(() => {
    const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS
    const logs = new Map<string, KeyLog>()
    let lastSweepAt = Number.NEGATIVE_INFINITY

    const sweepIdleKeys = (now: number) => {
      if (now - lastSweepAt < sweepIntervalMs) return
      lastSweepAt = now
      for (const [key, log] of logs) {
        const newest = log.allowedAt[log.allowedAt.length - 1]
        if (newest === undefined || newest + log.windowMs <= now) logs.delete(key)
      }
    }

    const consume: MemoryRateLimiter["consume"] = ({ key, limit, windowMs }) =>
      Effect.flatMap(validateLimits(limit, windowMs), () =>
        Effect.map(Clock.currentTimeMillis, (now): RateLimitDecision => {
          sweepIdleKeys(now)
          const log = logs.get(key) ?? { allowedAt: [], windowMs }
          log.windowMs = windowMs
          logs.set(key, log)

          const { allowedAt } = log
          // The window is (now - windowMs, now]: a call exactly windowMs ago no longer counts.
          while (allowedAt.length > 0 && allowedAt[0]! <= now - windowMs) allowedAt.shift()

          const allowed = allowedAt.length < limit
          if (allowed) allowedAt.push(now)
          const count = allowedAt.length
          return {
            allowed,
            limit,
            remaining: Math.max(0, limit - count),
            // The call whose expiry makes room again; it is the oldest unless the limit shrank since it was counted.
            retryAfterMs: allowed ? 0 : allowedAt[count - limit]! + windowMs - now,
            resetMs: count === 0 ? 0 : allowedAt[count - 1]! + windowMs - now
          }
        })
      )

    return {
      consume,
      trackedKeyCount: Effect.sync(() => logs.size)
    }
  })

/** Provides the RateLimiter port from one in-process sliding-window log. */
export const memoryRateLimiterLayer = (options: MemoryRateLimiterOptions = {}): Layer.Layer<RateLimiter> =>
  Layer.effect(
    RateLimiter,
    Effect.map(makeMemoryRateLimiter(options), ({ consume }) => RateLimiter.of({ consume }))
  )
