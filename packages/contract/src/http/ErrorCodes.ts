import type { DomainError } from "@talab/core"

/**
 * Every `error.code` of the API with its HTTP status (decisions.md section 6): the one table the envelope's
 * response classes, the OpenAPI document's error responses, the messages' catalogue and the SDK's code union
 * are made from.
 */
export const statusOfCode = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INVALID_OTP: 401,
  OTP_EXPIRED: 401,
  OTP_ATTEMPTS_EXCEEDED: 401,
  INVALID_REFRESH_TOKEN: 401,
  FORBIDDEN: 403,
  SELLER_NOT_APPROVED: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_NOT_ACTIVE: 422,
  REQUEST_ALREADY_CLOSED: 422,
  DUPLICATE_PENDING_OFFER: 422,
  OFFER_ALREADY_ACCEPTED: 422,
  OFFER_NOT_PENDING: 422,
  CANNOT_OFFER_ON_OWN_REQUEST: 422,
  DEAL_NOT_ACTIVE: 422,
  REPORT_NOT_PENDING: 422,
  SELLER_PROFILE_EXISTS: 422,
  SELLER_PROFILE_NOT_PENDING: 422,
  CANNOT_REPORT_SELF: 422,
  OFFER_EXPIRED: 422,
  REQUEST_EXPIRED: 422,
  REQUEST_ALREADY_EXTENDED: 422,
  ALERT_RULE_LIMIT_REACHED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  UPGRADE_REQUIRED: 426,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503
} as const

/** An `error.code` of the API. */
export type ErrorCode = keyof typeof statusOfCode

/** An HTTP status the API answers errors with. */
export type ErrorStatus = (typeof statusOfCode)[ErrorCode]

/** The codes answered with `status`. */
export type CodeOfStatus<S extends ErrorStatus> = {
  [C in ErrorCode]: (typeof statusOfCode)[C] extends S ? C : never
}[ErrorCode]

/** The codes answered with `status`, in the table's order. */
export const codesOfStatus = <S extends ErrorStatus>(status: S): ReadonlyArray<CodeOfStatus<S>> =>
  (Object.keys(statusOfCode) as Array<ErrorCode>).filter(
    (code): code is CodeOfStatus<S> => statusOfCode[code] === status
  )

/** Whether a string is a code of the table. */
export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === "string" && Object.hasOwn(statusOfCode, code)

/* Every code a domain error of @talab/core carries has a status here: a new one does not compile until it has. */
const everyDomainCodeHasAStatus: [DomainError["code"]] extends [ErrorCode] ? true : never = true
void everyDomainCodeHasAStatus
