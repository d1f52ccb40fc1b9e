import { randomUUID } from "node:crypto"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Path from "@effect/platform/Path"
import { type ErrorCode, translate } from "@talab/contract"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import { AVATAR_BODY_LIMIT, JSON_BODY_LIMIT } from "../http/BodyCheck.js"
import { parseJsonOnce } from "../http/JsonBody.js"
import { envelope } from "../http/Localize.js"
import { rateLimitHeaders } from "../http/RateLimitHeaders.js"
import { AVATAR_PATH, isAuthPath, pathOf as pathOfUrl } from "../http/RequestPath.js"
import { RequestState, requestState, setRequestState } from "../http/RequestState.js"
import { negotiateLanguage } from "../i18n/Language.js"
import { answerConditionally } from "./ConditionalGet.js"
import { securityHeaders } from "./SecurityHeaders.js"

const languageOf = (request: HttpServerRequest.HttpServerRequest, state: RequestState) =>
  negotiateLanguage(request.headers["accept-language"], state.userLanguage)

const pathOf = (request: HttpServerRequest.HttpServerRequest) => pathOfUrl(request.url)

const envelopeResponse = (
  request: HttpServerRequest.HttpServerRequest,
  state: RequestState,
  code: ErrorCode,
  status: number,
  details: Record<string, Array<string>> = {}
) => HttpServerResponse.unsafeJson(envelope(code, languageOf(request, state), details), { status })

/** An envelope response built outside any handler, in the request's language. */
export const errorEnvelopeResponse = (
  code: ErrorCode,
  status: number,
  details: Record<string, Array<string>> = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.zipWith(HttpServerRequest.HttpServerRequest, requestState, (request, state) =>
    envelopeResponse(request, state, code, status, details)
  )

const bodyJson = (response: HttpServerResponse.HttpServerResponse): unknown => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    return JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return undefined
  }
}

/**
 * Turns the responses the framework makes itself (unknown routes, bad bodies, defects) into the spec's
 * envelope, and adds the rate-limit and request-id headers. Decode failures are answered further in
 * (`DecodeFailure.ts`), where the failure is still the framework's error.
 */
const finalizeResponse = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  state: RequestState,
  options: PipelineOptions
): HttpServerResponse.HttpServerResponse => {
  const envelopeHere = (code: ErrorCode, status: number, details?: Record<string, Array<string>>) =>
    envelopeResponse(request, state, code, status, details)
  let final = response
  const isEmpty = response.body._tag === "Empty"
  if (response.status === 400 && isEmpty) {
    final = envelopeHere("VALIDATION_ERROR", 400, { body: [translate("malformed_json", languageOf(request, state))] })
  } else if (response.status === 404 && isEmpty) {
    final = envelopeHere("NOT_FOUND", 404)
  } else if (response.status === 413 && isEmpty) {
    final = envelopeHere("PAYLOAD_TOO_LARGE", 413)
  } else if (response.status === 500 && (isEmpty || (bodyJson(response) as any)?.success !== false)) {
    final = envelopeHere("INTERNAL_ERROR", 500)
  }
  if (!isAuthPath(pathOf(request))) final = answerConditionally(request, final)
  return HttpServerResponse.setHeaders(final, {
    ...securityHeaders(pathOf(request), final, options),
    ...rateLimitHeaders(state.rateLimit),
    "x-request-id": requestId,
    // The body was cut off or never read, so this connection cannot carry another request.
    ...(final.status === 413 || final.status === 415 ? { connection: "close" } : {})
  })
}

/** A client's own X-Request-Id is kept when it is a plain token; anything else could forge log lines. */
const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const given = request.headers["x-request-id"]
  return given !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID()
}

/**
 * The messages of a defect and of the errors it wraps ("Failed to execute statement ← relation … does
 * not exist"): the pretty cause stops at the outer error, which alone seldom tells what went wrong.
 */
const describeDefects = (cause: Cause.Cause<unknown>) =>
  Chunk.toReadonlyArray(Cause.defects(cause))
    .map((defect) => {
      const messages: Array<string> = []
      for (let error: unknown = defect, depth = 0; error !== undefined && depth < 5; depth++) {
        messages.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
        error = error instanceof Error ? error.cause : undefined
      }
      return messages.join(" ← ")
    })
    .join("; ")

/** The one log line of every request. */
const logRequest = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  startedAt: number
) => {
  // A 503 (database down, server draining) is the client's to retry later, not a bug; a 500 is.
  const level = response.status === 503 ? LogLevel.Warning : response.status >= 500 ? LogLevel.Error : LogLevel.Info
  // Below LOG_LEVEL the line is not written, so its annotations (a copy of the fiber's log context) are not made.
  return Effect.flatMap(FiberRef.get(FiberRef.currentMinimumLogLevel), (minimum) =>
    LogLevel.lessThan(level, minimum)
      ? Effect.void
      : Effect.logWithLevel(level, "request").pipe(
          Effect.annotateLogs({
            request_id: requestId,
            method: request.method,
            path: pathOf(request),
            status: response.status,
            duration_ms: Math.round((performance.now() - startedAt) * 10) / 10
          })
        )
  )
}

const hasNoBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "GET" || request.method === "HEAD"

/**
 * The app under the body size limit of its path. A GET or HEAD has no body any route reads (an endpoint's GET
 * payload is its query string), so those run as they are.
 */
const limitedApp = <E, R>(app: HttpApp.Default<E, R>, request: HttpServerRequest.HttpServerRequest) =>
  hasNoBody(request)
    ? app
    : HttpIncomingMessage.withMaxBodySize(
        app,
        Option.some(pathOf(request) === AVATAR_PATH ? AVATAR_BODY_LIMIT : JSON_BODY_LIMIT)
      )

/**
 * What a request's handling reads from its context: the request, its scope, the platform's services for
 * responses (files, tags) and the request's span (telemetry). The server's context holds every service of the
 * app (about 45), and the framework copies the request's context at each step (router, middlewares,
 * handlers); everything else a route or middleware uses it took when it was built, and a handler runs in its
 * group's context. So the request runs in these alone, copied cheaply.
 */
type RequestServices =
  | HttpServerRequest.HttpServerRequest
  | Scope.Scope
  | HttpPlatform.HttpPlatform
  | Etag.Generator
  | FileSystem.FileSystem
  | Path.Path

// The span is kept when there is one (telemetry on) and required by nobody.
const pickRequestServices = Context.pick(
  HttpServerRequest.HttpServerRequest,
  Scope.Scope,
  HttpPlatform.HttpPlatform,
  Etag.Generator,
  FileSystem.FileSystem,
  Path.Path,
  Tracer.ParentSpan
)
const requestContextOf = <R extends RequestServices>(context: Context.Context<R>) =>
  pickRequestServices(context) as Context.Context<R>

export interface PipelineOptions {
  /** Send `Strict-Transport-Security` on every response (HSTS=true). */
  readonly hsts: boolean
}

/**
 * The outermost middleware of every request: a request id (on every log line of the request, and
 * echoed in X-Request-Id), the body size limit and single JSON parse, the envelope and security headers
 * for every response, and one log line when the response goes out. It must not answer by itself: a
 * response it made would skip the pre-response handler (and so the envelope, headers and log line).
 */
export const requestPipeline =
  (options: PipelineOptions) =>
  <E, R extends RequestServices>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const startedAt = performance.now()
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = requestIdOf(request)
      const state = new RequestState()
      yield* HttpApp.appendPreResponseHandler((request, response) => {
        const final = finalizeResponse(request, response, requestId, state, options)
        return Effect.as(logRequest(request, final, requestId, startedAt), final)
      })
      if (!hasNoBody(request)) parseJsonOnce(request)
      // Set, not scoped: this fiber is the request's own and ends with it.
      yield* setRequestState(state)
      yield* FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set("request_id", requestId as unknown))
      return yield* limitedApp(app, request).pipe(
        Effect.mapInputContext(requestContextOf<R | HttpServerRequest.HttpServerRequest>),
        // A defect becomes a bare 500 for the client; the log keeps what happened. The router dies with a response
        // for a path it does not know (a 404 the platform answers): that is a client's mistake, not an error.
        Effect.tapDefect((cause) =>
          Chunk.every(Cause.defects(cause), HttpServerResponse.isServerResponse)
            ? Effect.void
            : Effect.logError("unhandled defect", cause).pipe(Effect.annotateLogs("error", describeDefects(cause)))
        )
      )
    })
