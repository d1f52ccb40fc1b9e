import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { RateLimiter } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../config/AppConfig.js"
import { consumeApiBudget } from "../http/ApiRateLimit.js"
import { makeCallerOf } from "../http/Authentication.js"
import { requestLanguage } from "../http/Localize.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { pathOf } from "../http/RequestPath.js"
import { requestState } from "../http/RequestState.js"
import { makeMissFlights } from "../readcache/MissFlights.js"
import { type CachedAnswer, ReadCache, variantKey } from "../readcache/ReadCache.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
/** The reads kept: signed-in ones (the list and a request) and the public one (a seller's profile). */
const SIGNED_IN_READS = new RegExp(`^/api/v1/requests(?:/${UUID})?$`)
const PUBLIC_READS = new RegExp(`^/api/v1/seller-profiles/${UUID}$`)

/**
 * The route's key: its path and its whole query, parameters in name order (the order of one name's values
 * kept), so any parameter a read adds is part of the key without being listed here.
 */
const routeKeyOf = (url: string, path: string) => {
  const query = url.indexOf("?")
  if (query === -1) return path
  const params = [...new URLSearchParams(url.slice(query + 1))]
  // A stable sort: values of one name stay in the order they came.
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `${path}?${new URLSearchParams(params).toString()}`
}

/** A miss's answer as the reads that waited for it may take it: the viewers it is meant for. */
interface SharedAnswer {
  readonly answer: CachedAnswer
  readonly fullViewers: ReadonlyArray<string>
  readonly variant: string
}

/**
 * Answers the public reads many users repeat from the encoded bytes a read of the same route gave before, with
 * no SQL and before the router: `GET /requests` (any query), `GET /requests/{id}`, `GET /seller-profiles/{id}`.
 * A hit is authenticated and counted as the endpoint would be (a seller's profile is counted per network at
 * the edge already); a caller the cache cannot vouch for (no valid token) goes on to the endpoint's own
 * answer. What depends on the viewer is in the key: the response language and, for a request, whether they
 * read its notes unmasked (its buyer and the seller of its deal). A miss runs the endpoint and keeps its 200
 * when the handler said it may (`cacheableAnswer`, with the tags whose writes drop it); reads of a route whose
 * miss is being answered wait for it (when no drop came since it began) and take its answer when it is their
 * variant, kept or not (readcache/MissFlights.ts). READ_CACHE=off skips it all.
 */
export const ReadCacheLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const cache = yield* ReadCache
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    const callerOf = yield* makeCallerOf
    if (!cache.enabled) return (app: HttpApp.Default) => app
    const flights = makeMissFlights<SharedAnswer>()
    /** Runs the endpoint, keeps its answer when the handler said it may, and says what waiting reads may share. */
    const answerAndKeep = (
      app: HttpApp.Default,
      routeKey: string,
      signedIn: boolean,
      generation: number,
      now: number
    ) =>
      Effect.gen(function* () {
        const response = yield* app
        const state = yield* requestState
        if (state.cacheable === undefined || response.status !== 200 || response.body._tag !== "Uint8Array") {
          return { response, shared: undefined }
        }
        const userId = signedIn && state.caller !== undefined ? Option.getOrUndefined(state.caller)?.user.id : undefined
        const viewer = { language: yield* requestLanguage, userId }
        const answer = { body: response.body.body, contentType: response.body.contentType }
        cache.store(routeKey, viewer, answer, state.cacheable, { generation, now })
        const fullViewers = state.cacheable.fullViewers ?? []
        return { response, shared: { answer, fullViewers, variant: variantKey(fullViewers, viewer) } }
      })
    return (app: HttpApp.Default) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (request.method !== "GET") return yield* app
        const path = pathOf(request.url)
        const signedIn = SIGNED_IN_READS.test(path)
        if (!signedIn && !PUBLIC_READS.test(path)) return yield* app
        const routeKey = routeKeyOf(request.url, path)
        let now = yield* Clock.currentTimeMillis
        let shared: SharedAnswer | undefined
        let kept = cache.has(routeKey, now)
        if (!kept) {
          shared = yield* flights.awaitCurrent(routeKey, cache.generation())
          now = yield* Clock.currentTimeMillis
          kept = shared === undefined && cache.has(routeKey, now)
        }
        const generation = cache.generation()
        if (shared !== undefined || kept) {
          let userId: string | undefined
          if (signedIn) {
            const caller = yield* callerOf(request)
            // No valid token: the endpoint answers its 401.
            if (Option.isNone(caller)) return yield* app
            userId = caller.value.user.id
          }
          const viewer = { language: yield* requestLanguage, userId }
          const answer =
            shared !== undefined && shared.variant === variantKey(shared.fullViewers, viewer)
              ? shared.answer
              : cache.lookup(routeKey, viewer, now)
          if (answer !== undefined) {
            if (userId !== undefined) {
              const decision = yield* consumeApiBudget(limiter, config, userId)
              yield* recordRateLimit(decision)
              if (!decision.allowed) return yield* errorEnvelopeResponse("RATE_LIMITED", 429)
            }
            return HttpServerResponse.uint8Array(answer.body, { status: 200, contentType: answer.contentType })
          }
        }
        const { response } = yield* flights.lead(
          routeKey,
          generation,
          answerAndKeep(app, routeKey, signedIn, generation, now),
          ({ shared }) => shared
        )
        return response
      })
  })
)
