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
/** The one-time code is wrong, was used already, or none was requested for the phone number. */
export class InvalidOtp extends Data.TaggedError("InvalidOtp")<{}> {
  readonly code = "INVALID_OTP" as const
}
/** The one-time code is past its 10 minutes (`OTP_TTL_MS`); the user requests a new one. */
export class OtpExpired extends Data.TaggedError("OtpExpired")<{}> {
  readonly code = "OTP_EXPIRED" as const
}
/**
 * The one-time code was tried `OTP_MAX_ATTEMPTS` times already; even the right code fails now, until a new one is
 * requested.
 */
export class OtpAttemptsExceeded extends Data.TaggedError("OtpAttemptsExceeded")<{}> {
  readonly code = "OTP_ATTEMPTS_EXCEEDED" as const
}
/** The refresh token is expired, revoked, malformed or an access token; the user signs in again. */
export class InvalidRefreshToken extends Data.TaggedError("InvalidRefreshToken")<{}> {
  readonly code = "INVALID_REFRESH_TOKEN" as const
}
/** The caller is known but may not do this. */
export class Forbidden extends Data.TaggedError("Forbidden")<{}> {
  readonly code = "FORBIDDEN" as const
}
/**
 * The caller has no approved seller profile (none, pending, rejected or suspended), so may not act as a seller, e.g.
 * make an offer.
 */
export class SellerNotApproved extends Data.TaggedError("SellerNotApproved")<{}> {
  readonly code = "SELLER_NOT_APPROVED" as const
}
/** No such resource (or not visible to the caller). `resource` names which, for logs. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly resource: string }> {
  readonly code = "NOT_FOUND" as const
}
/** An uploaded file is not of an accepted type, judged by its content: an avatar must be JPEG, PNG or WebP. */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{}> {
  readonly code = "UNSUPPORTED_MEDIA_TYPE" as const
}
/** The buy request is closed or expired, so it takes no new offer and no acceptance. */
export class RequestNotActive extends Data.TaggedError("RequestNotActive")<{}> {
  readonly code = "REQUEST_NOT_ACTIVE" as const
}
/** The buyer tried to close or extend a request that is closed already. */
export class RequestAlreadyClosed extends Data.TaggedError("RequestAlreadyClosed")<{}> {
  readonly code = "REQUEST_ALREADY_CLOSED" as const
}
/** The seller already has a pending offer on this request; it must be withdrawn (or answered) before another. */
export class DuplicatePendingOffer extends Data.TaggedError("DuplicatePendingOffer")<{}> {
  readonly code = "DUPLICATE_PENDING_OFFER" as const
}
/** The offer was accepted already, so it can be neither accepted again nor withdrawn. */
export class OfferAlreadyAccepted extends Data.TaggedError("OfferAlreadyAccepted")<{}> {
  readonly code = "OFFER_ALREADY_ACCEPTED" as const
}
/**
 * The offer is no longer pending (rejected or withdrawn; expired, for a withdrawal), or its seller is no longer
 * approved: it can be neither accepted nor withdrawn.
 */
export class OfferNotPending extends Data.TaggedError("OfferNotPending")<{}> {
  readonly code = "OFFER_NOT_PENDING" as const
}
/** A seller tried to make an offer on a buy request of their own. */
export class CannotOfferOnOwnRequest extends Data.TaggedError("CannotOfferOnOwnRequest")<{}> {
  readonly code = "CANNOT_OFFER_ON_OWN_REQUEST" as const
}
/** The deal is completed or cancelled already; only an `accepted` deal can be completed or cancelled. */
export class DealNotActive extends Data.TaggedError("DealNotActive")<{}> {
  readonly code = "DEAL_NOT_ACTIVE" as const
}
/** An administrator tried to resolve a report that is resolved or dismissed already. */
export class ReportNotPending extends Data.TaggedError("ReportNotPending")<{}> {
  readonly code = "REPORT_NOT_PENDING" as const
}
/** The user already has a seller profile, in whatever state, so cannot apply again. */
export class SellerProfileExists extends Data.TaggedError("SellerProfileExists")<{}> {
  readonly code = "SELLER_PROFILE_EXISTS" as const
}
/** An administrator tried to approve or reject a seller profile that is not pending. */
export class SellerProfileNotPending extends Data.TaggedError("SellerProfileNotPending")<{}> {
  readonly code = "SELLER_PROFILE_NOT_PENDING" as const
}
/** A user tried to report themself. */
export class CannotReportSelf extends Data.TaggedError("CannotReportSelf")<{}> {
  readonly code = "CANNOT_REPORT_SELF" as const
}
/** The offer's `valid_until` has passed. */
export class OfferExpired extends Data.TaggedError("OfferExpired")<{}> {
  readonly code = "OFFER_EXPIRED" as const
}
/** The request reached its expiry without being closed. */
export class RequestExpired extends Data.TaggedError("RequestExpired")<{}> {
  readonly code = "REQUEST_EXPIRED" as const
}
/** The request was extended once already. */
export class RequestAlreadyExtended extends Data.TaggedError("RequestAlreadyExtended")<{}> {
  readonly code = "REQUEST_ALREADY_EXTENDED" as const
}
/** A seller already has the most alert rules allowed (`max`); one must go before another is added. */
export class AlertRuleLimitReached extends Data.TaggedError("AlertRuleLimitReached")<{ readonly max: number }> {
  readonly code = "ALERT_RULE_LIMIT_REACHED" as const
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

/** Every error the domain and the application services raise on purpose. */
export type DomainError =
  | ValidationFailed
  | Unauthorized
  | InvalidOtp
  | OtpExpired
  | OtpAttemptsExceeded
  | InvalidRefreshToken
  | Forbidden
  | SellerNotApproved
  | NotFound
  | UnsupportedMediaType
  | RequestNotActive
  | RequestAlreadyClosed
  | DuplicatePendingOffer
  | OfferAlreadyAccepted
  | OfferNotPending
  | CannotOfferOnOwnRequest
  | DealNotActive
  | ReportNotPending
  | SellerProfileExists
  | SellerProfileNotPending
  | CannotReportSelf
  | OfferExpired
  | RequestExpired
  | RequestAlreadyExtended
  | AlertRuleLimitReached
  | RateLimited
  | ServiceUnavailable

/**
 * The code each domain error carries, stable across releases. How a transport answers each code is the
 * transport's business, not the domain's.
 */
export type ErrorCode = DomainError["code"]
