import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"
import {
  type CodeOfStatus,
  codesOfStatus,
  type ErrorCode,
  type ErrorStatus,
  statusOfCode
} from "../errors/Catalogue.js"

/** `error.details`: a field name mapped to its messages, in the response language. */
export const ErrorDetails = Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
export type ErrorDetails = typeof ErrorDetails.Type

const errorBody = <Code extends ErrorCode>(codes: ReadonlyArray<Code>) =>
  Schema.Struct({
    code: Schema.Literal(...(codes as unknown as [Code])),
    message: Schema.String,
    details: ErrorDetails
  })

/** The codes of a status (`statusOfCode`), for the response class that answers them. */
const codesOf = <S extends ErrorStatus>(status: S, except: ReadonlyArray<ErrorCode> = []) =>
  codesOfStatus(status).filter((code) => !except.includes(code))

/*
 * One error class per status, each encoded as the spec's envelope, its codes taken from the error catalogue. The
 * handler fills the localized message before failing, because encoding cannot see the request.
 */
/**
 * 400 `VALIDATION_ERROR`: the input is malformed or breaks a field's rule; `error.details` maps each failing field to
 * its messages.
 */
export class ValidationErrorResponse extends Schema.Class<ValidationErrorResponse>("ValidationErrorResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(400)) },
  HttpApiSchema.annotations({ status: 400, description: "Invalid input" })
) {}
/**
 * 401: no valid access token (`UNAUTHORIZED`), or a sign-in or refresh refused (`INVALID_OTP`, `OTP_EXPIRED`,
 * `OTP_ATTEMPTS_EXCEEDED`, `INVALID_REFRESH_TOKEN`).
 */
export class UnauthorizedResponse extends Schema.Class<UnauthorizedResponse>("UnauthorizedResponse")(
  {
    success: Schema.Literal(false),
    error: errorBody(codesOf(401))
  },
  HttpApiSchema.annotations({ status: 401, description: "Missing or invalid credentials" })
) {}
/** 403: the caller may not do this (`FORBIDDEN`), or must be an approved seller to (`SELLER_NOT_APPROVED`). */
export class ForbiddenResponse extends Schema.Class<ForbiddenResponse>("ForbiddenResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(403)) },
  HttpApiSchema.annotations({ status: 403, description: "Not allowed" })
) {}
/** 404 `NOT_FOUND`: no such resource, or none the caller may know of; also an unknown route. */
export class NotFoundResponse extends Schema.Class<NotFoundResponse>("NotFoundResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(404)) },
  HttpApiSchema.annotations({ status: 404, description: "Not found" })
) {}
/** 413 `PAYLOAD_TOO_LARGE`: a JSON body over 1 MiB, or an avatar over 5 MiB. */
export class PayloadTooLargeResponse extends Schema.Class<PayloadTooLargeResponse>("PayloadTooLargeResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(413)) },
  HttpApiSchema.annotations({ status: 413, description: "Body too large" })
) {}
/** 415 `UNSUPPORTED_MEDIA_TYPE`: an upload whose content is not of an accepted type (an avatar: JPEG, PNG or WebP). */
export class UnsupportedMediaTypeResponse extends Schema.Class<UnsupportedMediaTypeResponse>(
  "UnsupportedMediaTypeResponse"
)(
  { success: Schema.Literal(false), error: errorBody(codesOf(415)) },
  HttpApiSchema.annotations({ status: 415, description: "Unsupported media type" })
) {}
/** The 422 codes of business rules: every 422 but a reused idempotency key, which has its own response. */
type BusinessRuleCode = Exclude<CodeOfStatus<422>, "IDEMPOTENCY_KEY_REUSED">

/**
 * 422: a business rule refused the operation; `error.code` names the rule (`REQUEST_NOT_ACTIVE`,
 * `OFFER_ALREADY_ACCEPTED`, …).
 */
export class BusinessRuleResponse extends Schema.Class<BusinessRuleResponse>("BusinessRuleResponse")(
  {
    success: Schema.Literal(false),
    error: errorBody(codesOf(422, ["IDEMPOTENCY_KEY_REUSED"]) as ReadonlyArray<BusinessRuleCode>)
  },
  HttpApiSchema.annotations({ status: 422, description: "A business rule refused the operation" })
) {}
/** 409 `IDEMPOTENCY_KEY_IN_USE`: a call with the same `Idempotency-Key` is still running; retry after `Retry-After`. */
export class IdempotencyKeyInUseResponse extends Schema.Class<IdempotencyKeyInUseResponse>(
  "IdempotencyKeyInUseResponse"
)(
  { success: Schema.Literal(false), error: errorBody(codesOf(409)) },
  HttpApiSchema.annotations({
    status: 409,
    description: "A call with the same Idempotency-Key is still running; retry after the Retry-After header"
  })
) {}
/** 422 `IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used before with another method, path or body. */
export class IdempotencyKeyReusedResponse extends Schema.Class<IdempotencyKeyReusedResponse>(
  "IdempotencyKeyReusedResponse"
)(
  { success: Schema.Literal(false), error: errorBody(["IDEMPOTENCY_KEY_REUSED"] as const) },
  HttpApiSchema.annotations({
    status: 422,
    description: "The Idempotency-Key was used with another method, path or body"
  })
) {}
/** 429 `RATE_LIMITED`: too many calls; the `Retry-After` header says in how many seconds to try again. */
export class RateLimitedResponse extends Schema.Class<RateLimitedResponse>("RateLimitedResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(429)) },
  HttpApiSchema.annotations({ status: 429, description: "Rate limit exceeded" })
) {}
/** 500 `INTERNAL_ERROR`: the server failed; the body never shows why. */
export class InternalErrorResponse extends Schema.Class<InternalErrorResponse>("InternalErrorResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(500)) },
  HttpApiSchema.annotations({ status: 500, description: "Server error" })
) {}

/**
 * 503 `SERVICE_UNAVAILABLE`: a dependency (the database, …) is unreachable or saturated for now; retry after
 * `Retry-After`.
 */
export class ServiceUnavailableResponse extends Schema.Class<ServiceUnavailableResponse>("ServiceUnavailableResponse")(
  { success: Schema.Literal(false), error: errorBody(codesOf(503)) },
  HttpApiSchema.annotations({ status: 503, description: "Unavailable for now; retry after the Retry-After header" })
) {}

/** The response class of each status an endpoint can answer with (426 is only the WebSocket upgrade's). */
const responseOfStatus = {
  400: ValidationErrorResponse,
  401: UnauthorizedResponse,
  403: ForbiddenResponse,
  404: NotFoundResponse,
  409: IdempotencyKeyInUseResponse,
  413: PayloadTooLargeResponse,
  415: UnsupportedMediaTypeResponse,
  422: BusinessRuleResponse,
  429: RateLimitedResponse,
  500: InternalErrorResponse,
  503: ServiceUnavailableResponse
} as const

/** Any error response of the API. */
export type ApiErrorResponse =
  | InstanceType<(typeof responseOfStatus)[keyof typeof responseOfStatus]>
  | IdempotencyKeyReusedResponse

/** The response class that answers `code`. */
export type ResponseOfCode<C extends ErrorCode> = C extends "IDEMPOTENCY_KEY_REUSED"
  ? IdempotencyKeyReusedResponse
  : (typeof statusOfCode)[C] extends keyof typeof responseOfStatus
    ? InstanceType<(typeof responseOfStatus)[(typeof statusOfCode)[C]]>
    : InternalErrorResponse

/** The error envelope `body` of `code` as its response class, so the endpoint encodes it with its status. */
export const errorResponseOf = <C extends ErrorCode>(
  code: C,
  body: {
    readonly success: false
    readonly error: { readonly code: C; readonly message: string; readonly details: ErrorDetails }
  }
): ResponseOfCode<C> => {
  const status = statusOfCode[code]
  const Response =
    code === "IDEMPOTENCY_KEY_REUSED"
      ? IdempotencyKeyReusedResponse
      : status in responseOfStatus
        ? responseOfStatus[status as keyof typeof responseOfStatus]
        : InternalErrorResponse
  return new Response(body as never) as ResponseOfCode<C>
}

/** The success envelope on the wire. */
interface SuccessEnvelope<D> {
  readonly success: true
  readonly data: D
  readonly message?: string
}

const successEnvelope = (data: Schema.Schema.Any) =>
  Schema.Struct({ success: Schema.Literal(true), data, message: Schema.optional(Schema.String) })

/** The success envelope around a data schema; a handler returns the data alone and the envelope is added here. */
export const Ok = <S extends Schema.Schema.Any>(
  data: S
): Schema.Schema<Schema.Schema.Type<S>, SuccessEnvelope<Schema.Schema.Encoded<S>>, Schema.Schema.Context<S>> =>
  Schema.transform(successEnvelope(data), Schema.typeSchema(data), {
    strict: false,
    decode: (envelope) => envelope.data,
    encode: (value) => ({ success: true as const, data: value })
  }) as never

/** What a handler returns for data that may come with a message. */
export interface WithMessage<A> {
  readonly data: A
  readonly message?: string
}

/** The success envelope of data that may come with a message: a handler returns `{ data, message? }`. */
export const OkWithMessage = <S extends Schema.Schema.Any>(
  data: S
): Schema.Schema<
  WithMessage<Schema.Schema.Type<S>>,
  SuccessEnvelope<Schema.Schema.Encoded<S>>,
  Schema.Schema.Context<S>
> =>
  Schema.transform(
    successEnvelope(data),
    Schema.Struct({ data: Schema.typeSchema(data), message: Schema.optional(Schema.String) }),
    {
      strict: false,
      decode: ({ data, message }) => (message === undefined ? { data } : { data, message }),
      encode: ({ data, message }) =>
        message === undefined ? { success: true as const, data } : { success: true as const, data, message }
    }
  ) as never

/*
 * The `data` of a response that has only a message: always `{}`. Named, so the document defines it once as a
 * component (the framework's own schema of an empty struct carries an `$id`, which each of its uses repeated).
 */
const EmptyData = Schema.Struct({}).annotations({
  identifier: "EmptyData",
  jsonSchema: {
    type: "object",
    additionalProperties: false,
    description: "Always an empty object: the response says what it did in `message`."
  }
})

/** The success envelope with only a message: a handler returns the message. */
export const OkMessage = Schema.transform(
  Schema.Struct({ success: Schema.Literal(true), data: EmptyData, message: Schema.String }),
  // Its own description would stand in the document for the response's.
  Schema.String.annotations({ description: "Success" }),
  {
    strict: true,
    decode: ({ message }) => message,
    encode: (message) => ({ success: true as const, data: {}, message })
  }
)
