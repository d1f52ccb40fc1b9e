import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/AppConfig.js"
import { clientNetwork } from "../http/ClientAddress.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { pathOf } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"
import { DOCS_PATH } from "./SecurityHeaders.js"

/** The reads anyone may make without a token, each answered from what the server holds. */
const PUBLIC_DOCUMENTS = new Set(["/api/v1/openapi.json", "/api/v1/asyncapi.json", DOCS_PATH, `${DOCS_PATH}/scalar.js`])
const PUBLIC_PROFILE = /^\/api\/v1\/seller-profiles\/[^/]+$/

const isPublicRead = (method: string, path: string) =>
  (method === "GET" || method === "HEAD") && (PUBLIC_DOCUMENTS.has(path) || PUBLIC_PROFILE.test(path))

/**
 * The per-network limit of the public reads (a seller's profile, the API documents, the reference page and its
 * script): without a token nothing else bounds them, and the documents are the largest answers the server has.
 * Counted before the route runs, like the auth limit; health, `/auth/*` (counted there) and avatars are not here.
 */
export const PublicRateLimitLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    return (app) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!isPublicRead(request.method, pathOf(request.url))) return yield* app
        const decision = yield* limiter.consume({
          key: `public-ip:${clientNetwork(request, config.trustProxy)}`,
          limit: config.publicRoutesPerMinute,
          windowMs: 60_000
        })
        yield* recordRateLimit(decision)
        return decision.allowed ? yield* app : yield* errorEnvelopeResponse("RATE_LIMITED", 429)
      })
  })
)
