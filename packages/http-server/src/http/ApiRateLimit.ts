import { ApiRateLimit, type RateLimitedResponse } from "@talab/contract"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/AppConfig.js"
import { errorResponse, requestLanguage } from "./Localize.js"
import { recordRateLimit } from "./RateLimitHeaders.js"
import { signedInCaller } from "./SignedInCaller.js"

/** Counts one call against a user's per-minute API budget (decisions.md section 8). */
export const consumeApiBudget = (limiter: RateLimiter["Type"], config: AppConfig["Type"], userId: string) =>
  limiter.consume({ key: `api:${userId}`, limit: config.rateLimits.apiPerMinute, windowMs: 60_000 })

/** The per-user API budget: every call is counted (its RateLimit-* headers recorded); past the limit, 429. */
export const ApiRateLimitLive = Layer.effect(
  ApiRateLimit,
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    return Effect.gen(function* () {
      const caller = yield* signedInCaller
      const decision = yield* consumeApiBudget(limiter, config, caller.user.id)
      yield* recordRateLimit(decision)
      if (decision.allowed) return
      const language = yield* requestLanguage
      return yield* Effect.fail(errorResponse("RATE_LIMITED", language) as RateLimitedResponse)
    })
  })
)
