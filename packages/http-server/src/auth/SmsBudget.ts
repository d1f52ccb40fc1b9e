import { type RateLimitDecision, RateLimited, RateLimiter, ValidationFailed } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import { AppConfig } from "../config/AppConfig.js"

const HOUR_MS = 60 * 60 * 1000

/**
 * What request-otp may spend on SMS: numbers of the allowed countries only, and at most so many codes in any
 * rolling hour from one client network and overall (counted in the shared limiter, so across instances on Redis).
 * Test phone numbers are held to it like any other: the rule is about what a request may cost, and a listed
 * number must not be a way around it.
 */
export class SmsBudget extends Effect.Service<SmsBudget>()("Auth/SmsBudget", {
  effect: Effect.gen(function* () {
    const { smsBudget } = yield* AppConfig
    const limiter = yield* RateLimiter
    const countries = new Set(smsBudget.allowedCountries)
    const shownCountries = smsBudget.allowedCountries.join(", ")
    /*
     * Which budgets this instance has said are spent, and until when: a spent budget is logged when it first
     * refuses, not on each refusal after (an attack would fill the log); once it has room again, it is said anew.
     */
    const spentUntil = new Map<string, number>()
    const logOnce = (key: string, decision: RateLimitDecision, message: string, annotations: Record<string, unknown>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        for (const [spent, until] of spentUntil) if (until <= now) spentUntil.delete(spent)
        if (spentUntil.has(key)) return
        spentUntil.set(key, now + decision.retryAfterMs)
        yield* Effect.logWarning(message).pipe(
          Effect.annotateLogs({ ...annotations, limit: decision.limit, retry_after_ms: decision.retryAfterMs })
        )
      })

    const refuse = (decision: RateLimitDecision) =>
      Effect.fail(new RateLimited({ retryAfterMs: decision.retryAfterMs, limit: decision.limit }))

    /** Refuses (400 on `phone_number`) a number of a country codes are not sent to. */
    const checkCountry = (phoneNumber: string) => {
      const country = parsePhoneNumberFromString(phoneNumber)?.country
      return country !== undefined && countries.has(country)
        ? Effect.void
        : Effect.fail(ValidationFailed.field("phone_number", "phone_country_not_served", { countries: shownCountries }))
    }

    /**
     * Counts one SMS against the network's budget, then the overall one; a refusal answers 429 and sends nothing.
     * The network is counted first, so one network past its budget cannot spend everyone's. Answers both decisions,
     * for the response's `RateLimit-*` headers.
     */
    const spend = (network: string) =>
      Effect.gen(function* () {
        const perNetwork = yield* limiter.consume({
          key: `sms-network:${network}`,
          limit: smsBudget.perNetworkPerHour,
          windowMs: HOUR_MS
        })
        if (!perNetwork.allowed) {
          yield* logOnce(`network:${network}`, perNetwork, "SMS: a client network spent its hourly budget of codes", {
            network
          })
          return yield* refuse(perNetwork)
        }
        const overall = yield* limiter.consume({ key: "sms-all", limit: smsBudget.perHour, windowMs: HOUR_MS })
        if (!overall.allowed) {
          yield* logOnce("all", overall, "SMS: the hourly budget of codes is spent; request-otp answers 429", {})
          return yield* refuse(overall)
        }
        return [perNetwork, overall] as const
      })

    return { checkCountry, spend } as const
  })
}) {}
