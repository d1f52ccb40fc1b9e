import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Authentication, type CurrentUser, type UnauthorizedResponse } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { makeSessionCheck } from "../auth/SessionCheck.js"
import { AppConfig } from "../config/AppConfig.js"
import { errorResponse, requestLanguage } from "./Localize.js"
import { requestState } from "./RequestState.js"

/** The token of an `Authorization: Bearer …` header, if it has that scheme. */
const bearerTokenOf = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers.authorization ?? ""
  // The framework takes whatever follows the first 7 characters; the scheme itself must be Bearer.
  return /^bearer /i.test(header) ? header.slice(7) : undefined
}

/**
 * The caller of a request's bearer access token, with a live session (None for anything else), their
 * language remembered for responses made outside the handler. Memoized in the request's state: the
 * idempotency middleware at the edge and the endpoint's Authentication both ask, and the middlewares declared
 * after Authentication (ApiRateLimit, AdminOnly) read it there.
 */
export const makeCallerOf = Effect.gen(function* () {
  const check = yield* makeSessionCheck
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Option.Option<CurrentUser["Type"]>> =>
    Effect.flatMap(requestState, (state) => {
      if (state.caller !== undefined) return Effect.succeed(state.caller)
      const token = bearerTokenOf(request)
      const signedIn = token === undefined ? Effect.succeedNone : check(token)
      return Effect.map(signedIn, (found) => {
        const caller = Option.map(found, ({ session, user }) => ({ user, sessionId: session.id }))
        state.caller = caller
        if (Option.isSome(caller)) state.userLanguage = caller.value.user.language
        return caller
      })
    })
})

/** The bearer check: the caller of a live session, else 401. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const callerOf = yield* makeCallerOf
    const config = yield* AppConfig
    const tracing = config.telemetry.otlpEndpoint !== undefined
    const unauthorized = Effect.flatMap(requestLanguage, (language) =>
      Effect.fail(errorResponse("UNAUTHORIZED", language) as UnauthorizedResponse)
    )
    return {
      bearer: (_token: Redacted.Redacted<string>) =>
        Effect.gen(function* () {
          const caller = yield* callerOf(yield* HttpServerRequest.HttpServerRequest)
          if (Option.isNone(caller)) return yield* unauthorized
          // Only when tracing: without a span, annotating fails inside (an exception built per request).
          if (tracing) yield* Effect.annotateCurrentSpan("enduser.id", caller.value.user.id)
          return caller.value
        })
    }
  })
)
