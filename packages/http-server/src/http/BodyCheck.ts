import { HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { translate } from "../i18n/messages.js"
import { PayloadTooLargeResponse, ValidationErrorResponse } from "./Envelope.js"
import { errorResponse, requestLanguage } from "./Localize.js"

export const JSON_BODY_LIMIT = 1024 * 1024
export const AVATAR_BODY_LIMIT = 6 * 1024 * 1024
export const AVATAR_PATH = "/api/v1/users/me/avatar"

const malformed = (key: "malformed_json" | "must_be_object") =>
  Effect.flatMap(requestLanguage, (language) =>
    Effect.fail(
      errorResponse("VALIDATION_ERROR", language, { body: [translate(key, language)] }) as ValidationErrorResponse
    )
  )
const tooLarge = Effect.flatMap(requestLanguage, (language) =>
  Effect.fail(errorResponse("PAYLOAD_TOO_LARGE", language) as PayloadTooLargeResponse)
)

/**
 * Checks a JSON body before the framework reads it: over 1 MiB is 413, unparsable or not an object
 * is 400. It runs after authentication, since a missing token outranks bad input. The request caches
 * the text, so the framework's own read reuses it.
 */
export const checkJsonBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method === "GET" || request.method === "HEAD" || request.method === "DELETE") return
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (contentType !== "" && !contentType.includes("application/json")) return
  if (Number(request.headers["content-length"] ?? "NaN") > JSON_BODY_LIMIT) return yield* tooLarge
  const text = yield* Effect.either(request.text)
  if (text._tag === "Left") {
    return yield* String((text.left as { cause?: unknown }).cause ?? "").includes("maxBytes")
      ? tooLarge
      : malformed("malformed_json")
  }
  // No body and no content type: an operation whose fields are all optional reads it as none.
  if (text.right.trim() === "" && contentType === "") return
  let parsed: unknown
  try {
    parsed = JSON.parse(text.right)
  } catch {
    return yield* malformed("malformed_json")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return yield* malformed("must_be_object")
})

/** The body check for endpoints that need no token. */
export class BodyCheck extends HttpApiMiddleware.Tag<BodyCheck>()("Http/BodyCheck", {
  failure: Schema.Union(ValidationErrorResponse, PayloadTooLargeResponse)
}) {}

export const BodyCheckLive = Layer.succeed(BodyCheck, checkJsonBody)
