import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import { AppConfig, type AppSettings } from "../config/AppConfig.js"
import { clientNetwork } from "../http/ClientAddress.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

interface NetworkLimit {
  /** Names the limit's keys, so two limits never share a count. */
  readonly name: string
  /** Whether the request is one this limit counts. */
  readonly counts: (request: HttpServerRequest.HttpServerRequest) => boolean
  readonly perMinute: (config: AppSettings) => number
}

/**
 * A per-network limit (an IPv4 address, an IPv6 /64) counted before the request is routed, so its 429 outranks
 * every other answer; requests it does not count go on untouched.
 */
export const networkRateLimit = ({ name, counts, perMinute }: NetworkLimit) =>
  HttpApiBuilder.middleware(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const limiter = yield* RateLimiter
      return (app) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!counts(request)) return yield* app
          const decision = yield* limiter.consume({
            key: `${name}:${clientNetwork(request, config.trustProxy)}`,
            limit: perMinute(config),
            windowMs: 60_000
          })
          yield* recordRateLimit(decision)
          return decision.allowed ? yield* app : yield* errorEnvelopeResponse("RATE_LIMITED", 429)
        })
    })
  )
