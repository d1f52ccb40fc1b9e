import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"

/** Seconds a client is told to wait (Retry-After) when a dependency is unreachable. */
export const RETRY_AFTER_SECONDS = 5

/*
 * SQLSTATEs saying the server cannot serve now, not that the statement is wrong: class 08 (connection
 * exception), 53300 too many connections, 57P01-57P03 shutting down or starting up.
 */
const unavailableState = /^(08...|53300|57P0[123])$/
const unreachable = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  // The embedded database's socket file is gone: it is stopping.
  "ENOENT"
])
// node-postgres says these without a code.
const unreachableMessage =
  /Connection terminated|timeout exceeded when trying to connect|Connection timed out|connection error|Cannot use a pool after calling end|Client was closed/i

/** Whether an error (or one it wraps) says a dependency could not be reached, rather than that something is wrong. */
const isUnreachable = (error: unknown): boolean => {
  const seen = new Set<unknown>()
  const visit = (current: unknown, depth: number): boolean => {
    if (current === null || typeof current !== "object" || depth > 6 || seen.has(current)) return false
    seen.add(current)
    const { code, message, cause, errors } = current as {
      code?: unknown
      message?: unknown
      cause?: unknown
      errors?: unknown
    }
    if (typeof code === "string" && (unreachable.has(code) || unavailableState.test(code))) return true
    if (typeof message === "string" && unreachableMessage.test(message)) return true
    // Connecting to a name with several addresses fails with one error per address.
    if (Array.isArray(errors) && errors.some((inner) => visit(inner, depth + 1))) return true
    return visit(cause, depth + 1)
  }
  return visit(error, 0)
}

/** Whether a failure (its errors or defects) is a dependency being unreachable. */
export const causeIsUnreachable = (cause: Cause.Cause<unknown>): boolean =>
  [...Chunk.toReadonlyArray(Cause.defects(cause)), ...Chunk.toReadonlyArray(Cause.failures(cause))].some(isUnreachable)
