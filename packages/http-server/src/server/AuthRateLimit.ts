import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/AppConfig.js"
import { clientNetwork } from "../http/ClientAddress.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { isAuthPath, pathOf } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/**
 * The per-IP limit of /auth/* (decisions.md section 8), counted before the request is routed, so a 429
 * outranks every other answer. It sits inside the CORS middleware so a browser can read the 429.
 * Only canonical paths get here (`CanonicalPathLive`, outside it, answers 404 to any other spelling) and
 * the router is case-sensitive and strict about slashes, so this prefix is exactly the auth group's routes.
 */
export const AuthRateLimitLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    return (app) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (request.method === "OPTIONS" || !isAuthPath(pathOf(request.url))) {
          return yield* app
        }
        const decision = yield* limiter.consume({
          key: `auth-ip:${clientNetwork(request, config.trustProxy)}`,
          limit: config.rateLimits.authPerMinute,
          windowMs: 60_000
        })
        yield* recordRateLimit(decision)
        return decision.allowed ? yield* app : yield* errorEnvelopeResponse("RATE_LIMITED", 429)
      })
  })
)
