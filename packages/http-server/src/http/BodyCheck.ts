import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import {
  BodyCheck,
  PayloadTooLargeResponse,
  translate,
  UnsupportedMediaTypeResponse,
  ValidationErrorResponse
} from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isJsonContentType, jsonBodyProblem } from "./JsonBody.js"
import { errorResponse, requestLanguage } from "./Localize.js"
import { AVATAR_PATH, IMAGES_PATH } from "./RequestPath.js"

export const JSON_BODY_LIMIT = 1024 * 1024
const AVATAR_BODY_LIMIT = 6 * 1024 * 1024
/** A photo's body: 10 MiB of image and the form around it. */
const IMAGE_BODY_LIMIT = 11 * 1024 * 1024

/** The body limit of a route that takes a multipart upload; undefined for every other (JSON) route. */
export const uploadBodyLimitOf = (path: string): number | undefined =>
  path === AVATAR_PATH ? AVATAR_BODY_LIMIT : path === IMAGES_PATH ? IMAGE_BODY_LIMIT : undefined

const malformed = (key: "malformed_json" | "must_be_object" | "too_deep") =>
  Effect.flatMap(requestLanguage, (language) =>
    Effect.fail(
      errorResponse("VALIDATION_ERROR", language, {
        body: [translate(key, language, { max: 64 })]
      }) as ValidationErrorResponse
    )
  )
const tooLarge = Effect.flatMap(requestLanguage, (language) =>
  Effect.fail(errorResponse("PAYLOAD_TOO_LARGE", language) as PayloadTooLargeResponse)
)
const unsupported = Effect.flatMap(requestLanguage, (language) =>
  Effect.fail(
    errorResponse("UNSUPPORTED_MEDIA_TYPE", language, {
      body: [translate("json_required", language)]
    }) as UnsupportedMediaTypeResponse
  )
)

/** Node reads a body only when the request announces one: a length above 0, or chunked transfer. */
export const announcesBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length.trim() !== "0")
}

/**
 * Checks the body of a JSON operation before the framework decodes it: over 1 MiB is 413; a body that is
 * not declared JSON (`application/json` or `+json`) is 415 and is never read; unparsable, nested deeper
 * than 64 levels or not an object is 400. It runs after authentication, since a missing token outranks
 * bad input. The body is parsed once (`JsonBody.installLimitedJsonReader`): the framework's decoding reuses it.
 */
const checkJsonBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method === "GET" || request.method === "HEAD" || request.method === "DELETE") return
  const contentType = request.headers["content-type"]
  if (Number(request.headers["content-length"] ?? "NaN") > JSON_BODY_LIMIT) return yield* tooLarge
  if (contentType === undefined) {
    // No body and no content type: an operation whose fields are all optional reads it as none.
    if (!announcesBody(request)) return
    return yield* unsupported
  }
  if (!isJsonContentType(contentType)) return yield* unsupported
  const parsed = yield* Effect.either(request.json)
  if (parsed._tag === "Left") {
    const problem = jsonBodyProblem(parsed.left)
    return yield* problem === "too_large" ? tooLarge : malformed(problem === "too_deep" ? "too_deep" : "malformed_json")
  }
  const body = parsed.right
  if (typeof body !== "object" || body === null || Array.isArray(body)) return yield* malformed("must_be_object")
})

export const BodyCheckLive = Layer.succeed(BodyCheck, checkJsonBody)
