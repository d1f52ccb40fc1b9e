import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ErrorCode } from "@talab/contract"
import * as Effect from "effect/Effect"
import { envelope } from "../../http/Localize.js"
import { type RequestState, requestState } from "../../http/RequestState.js"
import { negotiateLanguage } from "../../i18n/Language.js"

/** The language of an answer: what Accept-Language asks for, else the signed-in caller's own. */
export const languageOf = (request: HttpServerRequest.HttpServerRequest, state: RequestState) =>
  negotiateLanguage(request.headers["accept-language"], state.userLanguage)

export const envelopeResponse = (
  request: HttpServerRequest.HttpServerRequest,
  state: RequestState,
  code: ErrorCode,
  status: number,
  details: Record<string, Array<string>> = {}
) => HttpServerResponse.unsafeJson(envelope(code, languageOf(request, state), details), { status })

/** An envelope response built outside any handler, in the request's language. */
export const errorEnvelopeResponse = (
  code: ErrorCode,
  status: number,
  details: Record<string, Array<string>> = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.zipWith(HttpServerRequest.HttpServerRequest, requestState, (request, state) =>
    envelopeResponse(request, state, code, status, details)
  )
