import type { ServerFrame } from "./frames.js"

/**
 * Codes of a {@link RealtimeError}: the server's `error.code` of an error frame (`FORBIDDEN`,
 * `NOT_FOUND`, `RATE_LIMITED`, `VALIDATION_ERROR`, `UNAUTHORIZED`, …), or one of the client's own:
 * `TIMEOUT` (no reply in time), `CONNECTION_LOST` (the socket closed before the reply), `CLOSED` (the
 * client was closed), `SIGNED_OUT` (the session ended), `CATCH_UP_FAILED` (missed messages could not be
 * fetched over REST).
 */
export type RealtimeErrorCode =
  | "TIMEOUT"
  | "CONNECTION_LOST"
  | "CLOSED"
  | "SIGNED_OUT"
  | "CATCH_UP_FAILED"
  | Extract<ServerFrame, { readonly type: "error" }>["code"]
  | (string & {})

/** A realtime operation failed: an error frame from the server, a timeout, or the connection ended. */
export class RealtimeError extends Error {
  override readonly name = "RealtimeError"
  constructor(
    /** The server's error code, or the client's own (see {@link RealtimeErrorCode}). */
    readonly code: RealtimeErrorCode,
    message: string,
    options?: { readonly cause?: unknown }
  ) {
    super(message, options)
  }
}
