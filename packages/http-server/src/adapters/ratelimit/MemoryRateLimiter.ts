import { Memory } from "@talab/core"

/*
 * The in-process sliding-window log is core's in-memory adapter of the RateLimiter port: the server runs the
 * same one an embedder of core gets.
 */

/** Builds a strict sliding-window log held in this process (see `Memory.makeMemoryRateLimiter`). */
export const make = Memory.makeMemoryRateLimiter

/** Provides the RateLimiter port from one in-process sliding-window log. */
export const layer = Memory.memoryRateLimiterLayer
