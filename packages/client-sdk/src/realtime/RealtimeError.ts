import type { ServerFrame } from "./frames.js"

/**
 * The codes a {@link RealtimeError} gets from the client itself, never from the server: `TIMEOUT` (no reply in
 * time), `CONNECTION_LOST` (the socket closed before the reply), `CLOSED` (the client was closed), `SIGNED_OUT`
 * (the session ended), `CATCH_UP_FAILED` (missed messages could not be fetched over REST).
 */
export const REALTIME_CLIENT_CODES = ["TIMEOUT", "CONNECTION_LOST", "CLOSED", "SIGNED_OUT", "CATCH_UP_FAILED"] as const

/** The `code` of a server's `error` frame. */
export type RealtimeServerCode = Extract<ServerFrame, { readonly type: "error" }>["code"]

/**
 * Codes of a {@link RealtimeError}: the server's `error.code` of an error frame ({@link RealtimeServerCode}:
 * `UNAUTHORIZED`, `VALIDATION_ERROR`, `FORBIDDEN`, `NOT_FOUND`, `SELLER_NOT_APPROVED`, `RATE_LIMITED`,
 * `INTERNAL_ERROR`), or one of the client's own ({@link REALTIME_CLIENT_CODES}).
 */
export type RealtimeErrorCode = (typeof REALTIME_CLIENT_CODES)[number] | RealtimeServerCode

/**
 * A realtime operation failed: an error frame from the server (its `message` in the client's language), a
 * timeout, or the connection ended.
 */
export class RealtimeError extends Error {
  override readonly name = "RealtimeError"
  /**
   * Field → messages (in the client's language) of a `VALIDATION_ERROR` frame that names fields, as the REST
   * envelope's `error.details` (`{ message_text: ["…"] }`); undefined otherwise.
   */
  readonly details: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  constructor(
    /** The server's error code, or the client's own (see {@link RealtimeErrorCode}). */
    readonly code: RealtimeErrorCode,
    message: string,
    options?: { readonly cause?: unknown; readonly details?: Readonly<Record<string, ReadonlyArray<string>>> }
  ) {
    super(message, options)
    this.details = options?.details
  }
}

/** Whether a value is a {@link RealtimeError}, optionally with one of the given codes. */
export const isRealtimeError = <C extends RealtimeErrorCode = RealtimeErrorCode>(
  value: unknown,
  ...codes: ReadonlyArray<C>
): value is RealtimeError & { readonly code: C } => {
  // By name too: an app that loads both the ESM and the CJS build has two RealtimeError classes.
  const isRealtime = value instanceof RealtimeError || (value instanceof Error && value.name === "RealtimeError")
  return isRealtime && (codes.length === 0 || (codes as ReadonlyArray<string>).includes((value as RealtimeError).code))
}
