import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { isErrorCode, statusOfCode, translate } from "@talab/contract"
import { RateLimiter } from "@talab/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/AppConfig.js"
import { consumeApiBudget } from "../http/ApiRateLimit.js"
import { makeCallerOf } from "../http/Authentication.js"
import { clientNetwork } from "../http/ClientAddress.js"
import { requestLanguage } from "../http/Localize.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { isAuthPath, pathOf } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "../server/RequestPipeline.js"
import { bodyForHash } from "./HashedBody.js"
import {
  IDEMPOTENCY_KEY_HEADER,
  isStoredStatus,
  isValidIdempotencyKey,
  REPLAYED_HEADER,
  requestHash
} from "./IdempotencyKey.js"
import { type KeyRef, makeIdempotencyStore, type StoredAnswer } from "./IdempotencyStore.js"

/**
 * The answer to keep of an endpoint's error: the API's error envelopes leave the router as failures and
 * are encoded further out, as their class encodes them (with the status of their code).
 */
const answerOfFailure = (cause: Cause.Cause<unknown>): StoredAnswer | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure) || Cause.isDie(cause) || Cause.isInterrupted(cause)) return undefined
  const error = failure.value as { error?: { code?: unknown } } | null
  const code = error?.error?.code
  if (!isErrorCode(code)) return undefined
  const status = statusOfCode[code]
  if (!isStoredStatus(status)) return undefined
  const encoded = Schema.encodeUnknownEither(
    (error as object).constructor as unknown as Schema.Schema<unknown, unknown>
  )(error)
  if (Either.isLeft(encoded)) return undefined
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(encoded.right) }
}

/** The answer to keep of a response, if it is one to keep. */
const answerOf = (response: HttpServerResponse.HttpServerResponse): StoredAnswer | undefined => {
  if (!isStoredStatus(response.status)) return undefined
  const { body } = response
  if (body._tag === "Empty") return { status: response.status, headers: { ...response.headers }, body: null }
  if (body._tag !== "Uint8Array") return undefined
  return {
    status: response.status,
    headers: { ...response.headers, "content-type": body.contentType },
    body: new TextDecoder().decode(body.body)
  }
}

const replayOf = ({ status, headers, body }: StoredAnswer) => {
  const { "content-type": contentType, ...rest } = headers
  const response =
    body === null
      ? HttpServerResponse.empty({ status })
      : HttpServerResponse.text(body, { status, contentType: contentType ?? "application/json" })
  return HttpServerResponse.setHeaders(response, { ...rest, [REPLAYED_HEADER]: "true" })
}

/**
 * `Idempotency-Key` on every POST (docs/DECISIONS.md, "Idempotency keys"). Inside the auth limit (so an
 * /auth/* call is counted per IP first) and inside the outage middleware (so an unreachable database is a
 * 503). It resolves the caller itself: the key space is per user, and a call without a valid token goes
 * on untouched to the endpoint's 401, storing nothing. A claimed call runs to its end even if its client
 * leaves, so the retry finds its answer rather than running it twice.
 */
export const IdempotencyLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    const callerOf = yield* makeCallerOf
    const store = yield* makeIdempotencyStore
    return (app: HttpApp.Default) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers[IDEMPOTENCY_KEY_HEADER]
        if (request.method !== "POST" || key === undefined) return yield* app
        const path = pathOf(request.url)
        let scope: string
        // An answer made here counts as a call, as the endpoint's own answer would (/auth/* is counted already).
        let answerHere = (
          response: HttpServerResponse.HttpServerResponse
        ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
          Effect.succeed(response)
        if (isAuthPath(path)) {
          scope = `ip:${clientNetwork(request, config.trustProxy)}`
        } else {
          const caller = yield* callerOf(request)
          if (Option.isNone(caller)) return yield* app
          const userId = caller.value.user.id
          scope = `user:${userId}`
          answerHere = (response) =>
            Effect.flatMap(consumeApiBudget(limiter, config, userId), (decision) =>
              Effect.zipRight(
                recordRateLimit(decision),
                decision.allowed ? Effect.succeed(response) : errorEnvelopeResponse("RATE_LIMITED", 429)
              )
            )
        }
        if (!isValidIdempotencyKey(key)) {
          const language = yield* requestLanguage
          return yield* answerHere(
            yield* errorEnvelopeResponse("VALIDATION_ERROR", 400, {
              "Idempotency-Key": [translate("idempotency_key_format", language)]
            })
          )
        }
        const body = yield* bodyForHash(request)
        // A body that cannot be read gets the endpoint's own answer (413, 400), and nothing is stored.
        if (body === undefined) return yield* app
        const hash = requestHash(request.method, path, body)
        const ref: KeyRef = { scope, key }
        const claim = yield* store.claim(ref, hash, yield* Clock.currentTimeMillis)
        if (claim._tag !== "Claimed") {
          if (claim.requestHash !== hash) {
            return yield* answerHere(yield* errorEnvelopeResponse("IDEMPOTENCY_KEY_REUSED", 422))
          }
          return yield* answerHere(
            claim._tag === "Running"
              ? HttpServerResponse.setHeader(
                  yield* errorEnvelopeResponse("IDEMPOTENCY_KEY_IN_USE", 409),
                  "retry-after",
                  "1"
                )
              : replayOf(claim.answer)
          )
        }
        const release = store
          .release(ref, claim.claimId)
          .pipe(Effect.catchAllCause((cause) => Effect.logWarning("idempotency key not released", cause)))
        return yield* app.pipe(
          Effect.onExit((exit) => {
            const answer = Exit.isFailure(exit) ? answerOfFailure(exit.cause) : answerOf(exit.value)
            if (answer === undefined) return release
            return store
              .complete(ref, claim.claimId, answer)
              .pipe(Effect.catchAllCause((cause) => Effect.logWarning("idempotent answer not stored", cause)))
          }),
          Effect.uninterruptible
        )
      })
  })
)
