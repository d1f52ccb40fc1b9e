import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  type ApiErrorResponse,
  CurrentUser,
  type ErrorCode,
  errorMessages,
  errorResponseOf,
  type ResponseOfCode,
  translate
} from "@talab/contract"
import type { FieldProblem, Language } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { negotiateLanguage } from "../i18n/Language.js"
import type { HandlerError } from "./EdgeErrors.js"
import { recordRateLimit } from "./RateLimitHeaders.js"
import { requestState } from "./RequestState.js"

/**
 * The language of the current request's response: Accept-Language, else the caller's (known in the handler,
 * and, for the responses made after it, from the request's state), else Arabic.
 */
export const requestLanguage: Effect.Effect<Language, never, HttpServerRequest.HttpServerRequest> = Effect.gen(
  function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const current = yield* Effect.serviceOption(CurrentUser)
    return negotiateLanguage(
      request.headers["accept-language"],
      Option.getOrUndefined(current)?.user.language ?? (yield* requestState).userLanguage
    )
  }
)

const localizeDetails = (
  details: Readonly<Record<string, ReadonlyArray<FieldProblem>>>,
  language: Language
): Record<string, Array<string>> =>
  Object.fromEntries(
    Object.entries(details).map(([field, problems]) => [
      field,
      problems.map((p) => translate(p.key, language, p.params))
    ])
  )

/** The envelope body of an error code in a language. */
export const envelope = <C extends ErrorCode>(
  code: C,
  language: Language,
  details: Record<string, Array<string>> = {}
) => ({
  success: false as const,
  error: { code, message: errorMessages[code][language], details }
})

/** The error response (schema class, so the endpoint encodes it with its status) of a code. */
export const errorResponse = <C extends ErrorCode>(
  code: C,
  language: Language,
  details: Record<string, Array<string>> = {}
): ResponseOfCode<C> => errorResponseOf(code, envelope(code, language, details))

/**
 * The `details` of a domain error: each field's problems for a validation failure; for an offer changed under an
 * accept, the offer's current revision (a number, as a string), so the client can show it and accept again.
 */
const detailsOf = (error: HandlerError, language: Language): Record<string, Array<string>> => {
  switch (error._tag) {
    case "ValidationFailed":
      return localizeDetails(error.details, language)
    case "OfferChanged":
      return { revision: [String(error.revision)] }
    default:
      return {}
  }
}

/** A domain (or edge) error as its localized envelope response. */
const fromDomainError = (error: HandlerError, language: Language): ApiErrorResponse =>
  errorResponse(error.code, language, detailsOf(error, language))

/**
 * Runs a handler's effect and turns its domain errors into localized envelopes. Every handler goes
 * through here, so the mapping lives in one place.
 */
export const respond = <A, E extends HandlerError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ResponseOf<E>, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAll(effect, (error: HandlerError) =>
    Effect.gen(function* () {
      if (error._tag === "RateLimited") {
        yield* recordRateLimit({
          allowed: false,
          limit: error.limit,
          remaining: 0,
          retryAfterMs: error.retryAfterMs,
          resetMs: error.retryAfterMs
        })
      }
      if (error._tag === "ServiceUnavailable") {
        const retryAfter = String(Math.max(1, Math.ceil(error.retryAfterSeconds)))
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", retryAfter))
        )
      }
      return yield* Effect.fail(fromDomainError(error, yield* requestLanguage) as ResponseOf<E>)
    })
  )

/** The envelope response class a domain error becomes, so endpoints declare exactly what they send. */
export type ResponseOf<E> = E extends { readonly code: infer C extends ErrorCode } ? ResponseOfCode<C> : never
