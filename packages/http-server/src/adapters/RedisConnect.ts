import type { Redis } from "ioredis"

/** How long the first connection (the socket and ioredis's ready check) may take before the start fails. */
const REDIS_CONNECT_TIMEOUT_MS = 10_000

/**
 * Opens a client made with `lazyConnect` and no `commandTimeout`, then gives its commands `commandTimeoutMs`.
 * The short per-command budget suits the hot path, not the start: ioredis's ready check (an INFO) counts as a
 * command, and a start stalls the event loop for longer than that budget on a busy host (the embedded database
 * boots in WebAssembly, synchronously, for a second or more), so the check timed out and the whole start failed
 * though Redis was there. A Redis that accepts the connection but never answers still fails the start, after
 * `connectTimeoutMs`.
 */
export const connectThenLimitCommands = async (
  client: Redis,
  commandTimeoutMs: number,
  connectTimeoutMs: number = REDIS_CONNECT_TIMEOUT_MS
): Promise<void> => {
  await answeredWithin(client.connect(), connectTimeoutMs)
  limitCommands(client, commandTimeoutMs)
}

/** Gives each command sent from now on `commandTimeoutMs`: ioredis reads the option per command, ready checks included. */
export const limitCommands = (client: Redis, commandTimeoutMs: number): void => {
  client.options.commandTimeout = commandTimeoutMs
}

/** `work`, or a failure once Redis has not answered within `timeoutMs`: a start's own bound, for its first commands. */
export const answeredWithin = async <A>(work: Promise<A>, timeoutMs: number = REDIS_CONNECT_TIMEOUT_MS): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms of connecting`)), timeoutMs)
  })
  try {
    return await Promise.race([work, gaveUp])
  } finally {
    clearTimeout(timer)
  }
}
