import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { RequestState, setRequestState } from "../http/RequestState.js"
import { drainUnreadBody } from "../http/UnreadBody.js"
import { shareOneJsonRead, underBodySizeLimit } from "./pipeline/RequestBody.js"
import { requestIdOf } from "./pipeline/RequestId.js"
import { annotateLogsWithRequestId, logRequest, logUnexpectedDefects } from "./pipeline/RequestLog.js"
import { inRequestServicesOnly, type RequestServices } from "./pipeline/RequestServices.js"
import { finalizeResponse, type ResponseOptions } from "./pipeline/ResponseRewrites.js"

// Where the WebSocket route and the idempotency middleware, outside this folder, take it from.
export { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/**
 * The outermost middleware of every request: a request id (on every log line of the request, and echoed in
 * X-Request-Id), the request's state, one JSON read under the body's limits, the final form of every response
 * (`finalizeResponse`) and one log line when it goes out. It must not answer by itself: a response it made
 * would skip the pre-response handler (and so the envelope, headers and log line).
 */
export const requestPipeline =
  (options: ResponseOptions) =>
  <E, R extends RequestServices>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const startedAt = performance.now()
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = requestIdOf(request)
      const state = new RequestState()
      state.requestId = requestId
      yield* HttpApp.appendPreResponseHandler((request, response) => {
        const final = finalizeResponse(request, response, requestId, state, options)
        return Effect.as(
          Effect.zipRight(
            final.status === 413 ? drainUnreadBody(request) : Effect.void,
            logRequest(request, final, requestId, startedAt)
          ),
          final
        )
      })
      // Set, not scoped: this fiber is the request's own and ends with it.
      yield* setRequestState(state)
      yield* annotateLogsWithRequestId(requestId)
      yield* shareOneJsonRead(request)
      return yield* underBodySizeLimit(app, request).pipe(inRequestServicesOnly, logUnexpectedDefects)
    })
