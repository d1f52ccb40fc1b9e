import { ERROR_STATUS } from "../generated/errors.js"
import type { ApiSchemas } from "./paths.js"

export { ERROR_STATUS }

/** An `error.code` of the Talab API. */
export type ErrorCode = keyof typeof ERROR_STATUS

/** Every `error.code` of the Talab API. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ReadonlyArray<ErrorCode>

type CodesInDocument = {
  [K in keyof ApiSchemas]: ApiSchemas[K] extends { success: false; error: { code: infer Code } } ? Code : never
}[keyof ApiSchemas]

/*
 * Fails to compile when the server's OpenAPI document names an error code this list lacks, so a new
 * code cannot reach apps untyped.
 */
const everyDocumentedCodeIsKnown: [CodesInDocument] extends [ErrorCode] ? true : never = true
void everyDocumentedCodeIsKnown

/** `error.details`: a field name mapped to its messages, in the response language. */
export type ErrorDetails = Readonly<Record<string, ReadonlyArray<string>>>

/** The error envelope the API answers with. */
export interface ErrorEnvelope {
  readonly success: false
  readonly error: { readonly code: string; readonly message: string; readonly details?: ErrorDetails }
}

/** The code an error status stands for when the body is not the API's envelope (a proxy's 502 page, …). */
const codeOfStatus = (status: number): ErrorCode => {
  switch (status) {
    case 400:
      return "VALIDATION_ERROR"
    case 401:
      return "UNAUTHORIZED"
    case 403:
      return "FORBIDDEN"
    case 404:
      return "NOT_FOUND"
    case 413:
      return "PAYLOAD_TOO_LARGE"
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE"
    case 426:
      return "UPGRADE_REQUIRED"
    case 429:
      return "RATE_LIMITED"
    case 503:
      return "SERVICE_UNAVAILABLE"
    default:
      return "INTERNAL_ERROR"
  }
}

const isKnownCode = (code: unknown): code is ErrorCode => typeof code === "string" && code in ERROR_STATUS

const isEnvelope = (body: unknown): body is ErrorEnvelope =>
  typeof body === "object" &&
  body !== null &&
  (body as { success?: unknown }).success === false &&
  typeof (body as { error?: { code?: unknown } }).error?.code === "string"

/**
 * The server answered with an error. `code` is one of the API's error codes, `message` is localized
 * (Accept-Language), `details` maps a field to its problems (400), `status` is the HTTP status.
 *
 * @example
 * try {
 *   await talab.POST("/offers", { body })
 * } catch (error) {
 *   if (error instanceof TalabApiError && error.code === "DUPLICATE_PENDING_OFFER") showAlreadyOffered()
 *   else throw error
 * }
 */
export class TalabApiError extends Error {
  override readonly name = "TalabApiError"
  /** The API's `error.code`. */
  readonly code: ErrorCode
  /** The HTTP status (400, 401, 403, 404, 413, 415, 422, 429 or 500). */
  readonly status: number
  /** Field name → messages, in the response language; empty unless the input was invalid. */
  readonly details: ErrorDetails
  /** For 429: seconds to wait before trying again (the `Retry-After` header), when the server said. */
  readonly retryAfterSeconds: number | undefined
  /** The body as the server sent it. */
  readonly body: unknown

  constructor(args: {
    readonly code: ErrorCode
    readonly status: number
    readonly message: string
    readonly details?: ErrorDetails
    readonly retryAfterSeconds?: number | undefined
    readonly body?: unknown
    readonly cause?: unknown
  }) {
    super(args.message, args.cause === undefined ? undefined : { cause: args.cause })
    this.code = args.code
    this.status = args.status
    this.details = args.details ?? {}
    this.retryAfterSeconds = args.retryAfterSeconds
    this.body = args.body
  }

  /** Reads an error response: the API's envelope, or anything else a server in between may send. */
  static fromResponse(response: Response, body: unknown): TalabApiError {
    const retryAfter = Number.parseInt(response.headers.get("retry-after") ?? "", 10)
    const retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined
    if (isEnvelope(body)) {
      const { code, message, details } = body.error
      return new TalabApiError({
        code: isKnownCode(code) ? code : codeOfStatus(response.status),
        status: response.status,
        message,
        details: details ?? {},
        retryAfterSeconds,
        body
      })
    }
    return new TalabApiError({
      code: codeOfStatus(response.status),
      status: response.status,
      message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
      retryAfterSeconds,
      body
    })
  }
}

/** The server could not be reached (offline, DNS, TLS, connection reset): no response at all. */
export class TalabNetworkError extends Error {
  override readonly name: string = "TalabNetworkError"
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options)
  }
}

/** The server did not answer within the client's timeout (`timeoutMs`, 15 s by default). */
export class TalabTimeoutError extends TalabNetworkError {
  override readonly name: string = "TalabTimeoutError"
}

/** Whether a value is a {@link TalabApiError}, optionally with one of the given codes. */
export const isTalabApiError = <C extends ErrorCode = ErrorCode>(
  value: unknown,
  ...codes: ReadonlyArray<C>
): value is TalabApiError & { readonly code: C } => {
  // By name too: an app that loads both the ESM and the CJS build has two TalabApiError classes.
  const isApiError = value instanceof TalabApiError || (value instanceof Error && value.name === "TalabApiError")
  return isApiError && (codes.length === 0 || (codes as ReadonlyArray<string>).includes((value as TalabApiError).code))
}
