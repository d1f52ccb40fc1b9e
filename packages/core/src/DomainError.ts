import type { AlertRuleLimitReached } from "./alerts/Errors.js"
import type { InvalidOtp, InvalidRefreshToken, OtpAttemptsExceeded, OtpExpired } from "./auth/Errors.js"
import type { DealNotActive } from "./deals/Errors.js"
import type { ImageLimitReached } from "./images/Errors.js"
import type {
  CannotOfferOnOwnRequest,
  CounterLimitReached,
  DuplicatePendingOffer,
  OfferAlreadyAccepted,
  OfferChanged,
  OfferExpired,
  OfferNotPending
} from "./offers/Errors.js"
import type { CannotReportSelf, ReportAlreadyPending, ReportNotPending } from "./reports/Errors.js"
import type {
  RequestAlreadyClosed,
  RequestAlreadyExtended,
  RequestExpired,
  RequestNotActive
} from "./requests/Errors.js"
import type {
  SellerNotApproved,
  SellerProfileExists,
  SellerProfileNotApproved,
  SellerProfileNotPending,
  SellerProfileNotSuspended
} from "./sellers/Errors.js"
import type {
  Forbidden,
  NotFound,
  RateLimited,
  ServiceUnavailable,
  Unauthorized,
  ValidationFailed
} from "./shared/Errors.js"
import type { OpenDealsExist, UnsupportedMediaType } from "./users/Errors.js"

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
  | SellerProfileNotApproved
  | SellerProfileNotSuspended
  | CannotReportSelf
  | ReportAlreadyPending
  | OfferExpired
  | RequestExpired
  | RequestAlreadyExtended
  | AlertRuleLimitReached
  | ImageLimitReached
  | CounterLimitReached
  | OfferChanged
  | OpenDealsExist
  | RateLimited
  | ServiceUnavailable

/**
 * The code each domain error carries, stable across releases. How a transport answers each code is the
 * transport's business, not the domain's.
 */
export type ErrorCode = DomainError["code"]
