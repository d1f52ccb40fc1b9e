import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as LogLevel from "effect/LogLevel"
import { pathOf } from "../../http/RequestPath.js"

/** Every log line the request's fiber writes from here on carries its id. */
export const annotateLogsWithRequestId = (requestId: string) =>
  FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set("request_id", requestId as unknown))

/**
 * What the log (and a trace) says of a request: its method and path. Never its query, where a phone number or
 * a search may sit, nor a header, where the tokens are.
 */
export const loggedRequestOf = (request: HttpServerRequest.HttpServerRequest) => ({
  method: request.method,
  path: pathOf(request.url)
})

/** The one log line of every request. */
export const logRequest = (
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
            ...loggedRequestOf(request),
            status: response.status,
            duration_ms: Math.round((performance.now() - startedAt) * 10) / 10
          })
        )
  )
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

/**
 * A defect becomes a bare 500 for the client, so the log is where what happened is kept. The router dies with a
 * response for a path it does not know (a 404 the platform answers): that is a client's mistake, not an error.
 */
export const logUnexpectedDefects = <A, E, R>(app: Effect.Effect<A, E, R>) =>
  Effect.tapDefect(app, (cause) =>
    Chunk.every(Cause.defects(cause), HttpServerResponse.isServerResponse)
      ? Effect.void
      : Effect.logError("unhandled defect", cause).pipe(Effect.annotateLogs("error", describeDefects(cause)))
  )
