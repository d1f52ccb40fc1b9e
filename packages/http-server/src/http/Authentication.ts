import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest } from "@effect/platform"
import { isLastUseStale, isSessionLive, RateLimiter, SessionRepo } from "@talab/core"
import { Clock, Effect, Layer, Option, Redacted, Schema } from "effect"
import { adminPolicy } from "../admin/Policy.js"
import { Tokens } from "../auth/Tokens.js"
import { AppConfig } from "../config/AppConfig.js"
import { checkJsonBody } from "./BodyCheck.js"
import { CurrentUser } from "./CurrentUser.js"
import {
  ForbiddenResponse,
  PayloadTooLargeResponse,
  RateLimitedResponse,
  UnauthorizedResponse,
  UnsupportedMediaTypeResponse,
  ValidationErrorResponse
} from "./Envelope.js"
import { errorResponse, rememberUserLanguage, requestLanguage } from "./Localize.js"
import { recordRateLimit } from "./RateLimitHeaders.js"
import { AVATAR_PATH, isAuthPath, pathOf } from "./RequestPath.js"

/**
 * Checks the bearer access token and its session, counts the call against the user's API budget,
 * checks the JSON body, and provides the caller. Logout is counted on the auth limit per IP instead.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Http/Authentication", {
  failure: Schema.Union(
    UnauthorizedResponse,
    RateLimitedResponse,
    ValidationErrorResponse,
    PayloadTooLargeResponse,
    UnsupportedMediaTypeResponse
  ),
  provides: CurrentUser,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * Authentication for `/admin/*`: as `Authentication`, then 403 to anyone but an administrator before the body
 * is looked at, and (being middleware) before the path or body is decoded or anything is looked up, so a
 * non-admin learns nothing about ids there (decisions.md section 11: only 401 and 429 come first).
 */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("Http/AdminAuthentication", {
  failure: Schema.Union(
    UnauthorizedResponse,
    RateLimitedResponse,
    ForbiddenResponse,
    ValidationErrorResponse,
    PayloadTooLargeResponse,
    UnsupportedMediaTypeResponse
  ),
  provides: CurrentUser,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The bearer check of both middlewares; `access` runs after the rate limit and before the body check. */
const makeBearer = <E>(
  access: (caller: CurrentUser["Type"]) => Effect.Effect<void, E, HttpServerRequest.HttpServerRequest>
) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const sessions = yield* SessionRepo
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const admins = adminPolicy(config.adminPhoneNumbers)
    const tracing = config.telemetry.otlpEndpoint !== undefined
    const unauthorized = Effect.flatMap(requestLanguage, (language) =>
      Effect.fail(errorResponse("UNAUTHORIZED", language) as UnauthorizedResponse)
    )
    return {
      bearer: (token: Redacted.Redacted<string>) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          // The framework takes whatever follows the first 7 characters; the scheme itself must be Bearer.
          if (!/^bearer /i.test(request.headers.authorization ?? "")) return yield* unauthorized
          const claims = yield* tokens.verify(Redacted.value(token), "access")
          if (claims === undefined) return yield* unauthorized
          const now = new Date(yield* Clock.currentTimeMillis)
          const found = yield* sessions.findWithUser(claims.sessionId)
          if (Option.isNone(found)) return yield* unauthorized
          const { session } = found.value
          if (!isSessionLive(session, now) || session.userId !== claims.userId) return yield* unauthorized
          // At most one write a minute per session, not one per call (docs/DECISIONS.md, "Sessions").
          if (isLastUseStale(session, now)) yield* sessions.touch(session.id, now)
          const user = admins.effective(found.value.user)
          rememberUserLanguage(request, user.language)
          // Only when tracing: without a span, annotating fails inside (an exception built per request).
          if (tracing) yield* Effect.annotateCurrentSpan("enduser.id", user.id)
          const current = { user, sessionId: claims.sessionId }
          // The path is canonical (checked before routing), so it is the matched route's path.
          const path = pathOf(request.url)
          if (!isAuthPath(path)) {
            const decision = yield* limiter.consume({
              key: `api:${user.id}`,
              limit: config.rateLimits.apiPerMinute,
              windowMs: 60_000
            })
            recordRateLimit(request, decision)
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
