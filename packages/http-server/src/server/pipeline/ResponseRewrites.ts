import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type ErrorCode, translate } from "@talab/contract"
import { rateLimitHeaders } from "../../http/RateLimitHeaders.js"
import { isAuthPath, pathOf } from "../../http/RequestPath.js"
import type { RequestState } from "../../http/RequestState.js"
import { answerConditionally } from "../ConditionalGet.js"
import { securityHeaders } from "../SecurityHeaders.js"
import { envelopeResponse, languageOf } from "./ErrorEnvelope.js"

export interface ResponseOptions {
  /** Send `Strict-Transport-Security` on every response (HSTS=true). */
  readonly hsts: boolean
}

const bodyJson = (response: HttpServerResponse.HttpServerResponse): unknown => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    return JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return undefined
  }
}

/**
 * The answers the framework makes itself, with no body (unknown route, malformed JSON, a body over its limit) or
 * with its own (a defect's 500), as the spec's envelope in the request's language. Decode failures are answered
 * further in (`DecodeFailure.ts`), where the failure is still the framework's error.
 */
const envelopeFrameworkAnswers = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  state: RequestState
): HttpServerResponse.HttpServerResponse => {
  const envelopeHere = (code: ErrorCode, status: number, details?: Record<string, Array<string>>) =>
    envelopeResponse(request, state, code, status, details)
  const isEmpty = response.body._tag === "Empty"
  if (response.status === 400 && isEmpty) {
    return envelopeHere("VALIDATION_ERROR", 400, { body: [translate("malformed_json", languageOf(request, state))] })
  }
  if (response.status === 404 && isEmpty) return envelopeHere("NOT_FOUND", 404)
  if (response.status === 413 && isEmpty) return envelopeHere("PAYLOAD_TOO_LARGE", 413)
  if (response.status === 500 && (isEmpty || (bodyJson(response) as { success?: unknown })?.success !== false)) {
    return envelopeHere("INTERNAL_ERROR", 500)
  }
  return response
}

/** The headers every response carries: security, rate limit, request id, and whether the connection can go on. */
const edgeHeaders = (
  path: string,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  state: RequestState,
  options: ResponseOptions
) => ({
  ...securityHeaders(path, response, options),
  ...rateLimitHeaders(state.rateLimit),
  "x-request-id": requestId,
  // The body was cut off or never read, so this connection cannot carry another request.
  ...(response.status === 413 || response.status === 415 ? { connection: "close" } : {})
})

/**
 * The response as the client gets it, whoever made it: the framework's own answers as the envelope, a GET's
 * ETag (or the 304 that replaces it; never on the auth routes, which are not cached), and the edge's headers.
 */
export const finalizeResponse = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  state: RequestState,
  options: ResponseOptions
): HttpServerResponse.HttpServerResponse => {
  const path = pathOf(request.url)
  const enveloped = envelopeFrameworkAnswers(request, response, state)
  const final = isAuthPath(path) ? enveloped : answerConditionally(request, enveloped)
  return HttpServerResponse.setHeaders(final, edgeHeaders(path, final, requestId, state, options))
}
