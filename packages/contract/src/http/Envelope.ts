import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** `error.details`: a field name mapped to its messages, in the response language. */
export const ErrorDetails = Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
export type ErrorDetails = typeof ErrorDetails.Type

const errorBody = <Codes extends ReadonlyArray<string>>(...codes: Codes) =>
  Schema.Struct({
    code: Schema.Literal(...(codes as unknown as [Codes[number]])),
    message: Schema.String,
    details: ErrorDetails
  })

/*
 * One error class per status, each encoded as the spec's envelope. The handler fills the localized
 * message before failing, because encoding cannot see the request.
 */
export class ValidationErrorResponse extends Schema.Class<ValidationErrorResponse>("ValidationErrorResponse")(
  { success: Schema.Literal(false), error: errorBody("VALIDATION_ERROR") },
  HttpApiSchema.annotations({ status: 400, description: "Invalid input" })
) {}
export class UnauthorizedResponse extends Schema.Class<UnauthorizedResponse>("UnauthorizedResponse")(
  {
    success: Schema.Literal(false),
    error: errorBody("UNAUTHORIZED", "INVALID_OTP", "OTP_EXPIRED", "OTP_ATTEMPTS_EXCEEDED", "INVALID_REFRESH_TOKEN")
  },
  HttpApiSchema.annotations({ status: 401, description: "Missing or invalid credentials" })
) {}
export class ForbiddenResponse extends Schema.Class<ForbiddenResponse>("ForbiddenResponse")(
  { success: Schema.Literal(false), error: errorBody("FORBIDDEN", "SELLER_NOT_APPROVED") },
  HttpApiSchema.annotations({ status: 403, description: "Not allowed" })
) {}
export class NotFoundResponse extends Schema.Class<NotFoundResponse>("NotFoundResponse")(
  { success: Schema.Literal(false), error: errorBody("NOT_FOUND") },
  HttpApiSchema.annotations({ status: 404, description: "Not found" })
) {}
export class PayloadTooLargeResponse extends Schema.Class<PayloadTooLargeResponse>("PayloadTooLargeResponse")(
  { success: Schema.Literal(false), error: errorBody("PAYLOAD_TOO_LARGE") },
  HttpApiSchema.annotations({ status: 413, description: "Body too large" })
) {}
export class UnsupportedMediaTypeResponse extends Schema.Class<UnsupportedMediaTypeResponse>(
  "UnsupportedMediaTypeResponse"
)(
  { success: Schema.Literal(false), error: errorBody("UNSUPPORTED_MEDIA_TYPE") },
  HttpApiSchema.annotations({ status: 415, description: "Unsupported media type" })
) {}
export class BusinessRuleResponse extends Schema.Class<BusinessRuleResponse>("BusinessRuleResponse")(
  {
    success: Schema.Literal(false),
    error: errorBody(
      "REQUEST_NOT_ACTIVE",
      "REQUEST_ALREADY_CLOSED",
      "DUPLICATE_PENDING_OFFER",
      "OFFER_ALREADY_ACCEPTED",
      "OFFER_NOT_PENDING",
      "CANNOT_OFFER_ON_OWN_REQUEST",
      "DEAL_NOT_ACTIVE",
      "REPORT_NOT_PENDING",
      "SELLER_PROFILE_EXISTS",
      "SELLER_PROFILE_NOT_PENDING",
      "CANNOT_REPORT_SELF",
      "OFFER_EXPIRED",
      "REQUEST_EXPIRED",
      "REQUEST_ALREADY_EXTENDED",
      "ALERT_RULE_LIMIT_REACHED"
    )
  },
  HttpApiSchema.annotations({ status: 422, description: "A business rule refused the operation" })
) {}
export class IdempotencyKeyInUseResponse extends Schema.Class<IdempotencyKeyInUseResponse>(
  "IdempotencyKeyInUseResponse"
)(
  { success: Schema.Literal(false), error: errorBody("IDEMPOTENCY_KEY_IN_USE") },
  HttpApiSchema.annotations({
    status: 409,
    description: "A call with the same Idempotency-Key is still running; retry after the Retry-After header"
  })
) {}
export class IdempotencyKeyReusedResponse extends Schema.Class<IdempotencyKeyReusedResponse>(
  "IdempotencyKeyReusedResponse"
)(
  { success: Schema.Literal(false), error: errorBody("IDEMPOTENCY_KEY_REUSED") },
  HttpApiSchema.annotations({
    status: 422,
    description: "The Idempotency-Key was used with another method, path or body"
  })
) {}
export class RateLimitedResponse extends Schema.Class<RateLimitedResponse>("RateLimitedResponse")(
  { success: Schema.Literal(false), error: errorBody("RATE_LIMITED") },
  HttpApiSchema.annotations({ status: 429, description: "Rate limit exceeded" })
) {}
export class InternalErrorResponse extends Schema.Class<InternalErrorResponse>("InternalErrorResponse")(
  { success: Schema.Literal(false), error: errorBody("INTERNAL_ERROR") },
  HttpApiSchema.annotations({ status: 500, description: "Server error" })
) {}

export class ServiceUnavailableResponse extends Schema.Class<ServiceUnavailableResponse>("ServiceUnavailableResponse")(
  { success: Schema.Literal(false), error: errorBody("SERVICE_UNAVAILABLE") },
  HttpApiSchema.annotations({ status: 503, description: "Unavailable for now; retry after the Retry-After header" })
) {}

export type ApiErrorResponse =
  | ValidationErrorResponse
  | UnauthorizedResponse
  | ForbiddenResponse
  | NotFoundResponse
  | PayloadTooLargeResponse
  | UnsupportedMediaTypeResponse
  | BusinessRuleResponse
  | IdempotencyKeyInUseResponse
  | IdempotencyKeyReusedResponse
  | RateLimitedResponse
  | InternalErrorResponse
  | ServiceUnavailableResponse

/** The success envelope around a data schema. */
export const Ok = <S extends Schema.Schema.Any>(data: S) =>
  Schema.Struct({ success: Schema.Literal(true), data, message: Schema.optional(Schema.String) })

/** The success envelope with only a message. */
export const OkMessage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({}),
  message: Schema.String
})
