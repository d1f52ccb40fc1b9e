import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import {
  AdminAuthentication,
  Authentication,
  CurrentUser,
  ForbiddenResponse,
  RateLimitedResponse,
  UnauthorizedResponse
} from "@talab/contract"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { makeSessionCheck } from "../auth/SessionCheck.js"
import { AppConfig } from "../config/AppConfig.js"
import { checkJsonBody } from "./BodyCheck.js"
import { errorResponse, requestLanguage } from "./Localize.js"
import { recordRateLimit } from "./RateLimitHeaders.js"
import { AVATAR_PATH, isAuthPath, pathOf } from "./RequestPath.js"
import { requestState } from "./RequestState.js"

/** The token of an `Authorization: Bearer …` header, if it has that scheme. */
export const bearerTokenOf = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers.authorization ?? ""
  // The framework takes whatever follows the first 7 characters; the scheme itself must be Bearer.
  return /^bearer /i.test(header) ? header.slice(7) : undefined
}

/**
 * The caller of a request's bearer access token, with a live session (None for anything else), their
 * language remembered for responses made outside the handler. Memoized per request: the idempotency
 * middleware at the edge and the endpoint's Authentication both ask.
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

/** The bearer check of both middlewares; `access` runs after the rate limit and before the body check. */
const makeBearer = <E>(
  access: (caller: CurrentUser["Type"]) => Effect.Effect<void, E, HttpServerRequest.HttpServerRequest>
) =>
  Effect.gen(function* () {
    const callerOf = yield* makeCallerOf
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const tracing = config.telemetry.otlpEndpoint !== undefined
    const unauthorized = Effect.flatMap(requestLanguage, (language) =>
      Effect.fail(errorResponse("UNAUTHORIZED", language) as UnauthorizedResponse)
    )
    return {
      bearer: (_token: Redacted.Redacted<string>) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const caller = yield* callerOf(request)
          if (Option.isNone(caller)) return yield* unauthorized
          const current = caller.value
          const { user } = current
          // Only when tracing: without a span, annotating fails inside (an exception built per request).
          if (tracing) yield* Effect.annotateCurrentSpan("enduser.id", user.id)
          // The path is canonical (checked before routing), so it is the matched route's path.
          const path = pathOf(request.url)
          if (!isAuthPath(path)) {
            const decision = yield* consumeApiBudget(limiter, config, user.id)
            yield* recordRateLimit(decision)
            if (!decision.allowed) {
              const language = yield* Effect.provideService(requestLanguage, CurrentUser, current)
              return yield* Effect.fail(errorResponse("RATE_LIMITED", language) as RateLimitedResponse)
            }
          }
          yield* access(current)
          if (path !== AVATAR_PATH) yield* checkJsonBody
          return current
        })
    }
  })

/** Counts one call against a user's per-minute API budget (decisions.md section 8). */
export const consumeApiBudget = (limiter: RateLimiter["Type"], config: AppConfig["Type"], userId: string) =>
  limiter.consume({ key: `api:${userId}`, limit: config.rateLimits.apiPerMinute, windowMs: 60_000 })

export const AuthenticationLive = Layer.effect(
  Authentication,
  makeBearer(() => Effect.void)
)

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  makeBearer((caller) =>
    caller.user.isAdmin
      ? Effect.void
      : Effect.flatMap(Effect.provideService(requestLanguage, CurrentUser, caller), (language) =>
          Effect.fail(errorResponse("FORBIDDEN", language) as ForbiddenResponse)
        )
  )
)
