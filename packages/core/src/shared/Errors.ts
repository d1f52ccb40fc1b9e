import * as Data from "effect/Data"

/** A field-level problem: a message key of the catalogue and its parameters, localized at the edge. */
export interface FieldProblem {
  readonly key: string
  readonly params?: Readonly<Record<string, string | number>>
}

/** Input broke a rule; `details` maps a field name to its problems. */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly details: Readonly<Record<string, ReadonlyArray<FieldProblem>>>
}> {
  readonly code = "VALIDATION_ERROR" as const
  /** A validation failure of one field with one problem. */
  static field(field: string, key: string, params?: Record<string, string | number>) {
    return new ValidationFailed({ details: { [field]: [params ? { key, params } : { key }] } })
  }
}

/** No valid credentials: the token is missing, malformed or expired, or its session has ended (logout, revoked). */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{}> {
  readonly code = "UNAUTHORIZED" as const
}

/** The caller is known but may not do this. */
export class Forbidden extends Data.TaggedError("Forbidden")<{}> {
  readonly code = "FORBIDDEN" as const
}

/** No such resource (or not visible to the caller). `resource` names which, for logs. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly resource: string }> {
  readonly code = "NOT_FOUND" as const
}

/** The caller went over a rate limit of `limit` calls; it may try again after `retryAfterMs` milliseconds. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly retryAfterMs: number
  readonly limit: number
}> {
  readonly code = "RATE_LIMITED" as const
}

/** Something the call needs is unavailable or saturated for now; the client may retry after `retryAfterSeconds`. */
export class ServiceUnavailable extends Data.TaggedError("ServiceUnavailable")<{
  readonly retryAfterSeconds: number
}> {
  readonly code = "SERVICE_UNAVAILABLE" as const
}
