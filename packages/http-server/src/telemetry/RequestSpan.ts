import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { loggedRequestOf } from "../server/pipeline/RequestLog.js"
import { isUntraced } from "./RequestMetrics.js"

/**
 * The span of every traced request, in place of the framework's: that one carries `url.full`, `url.query` and
 * every request and response header, where a phone number, a one-time code or a token may sit. This one says
 * what the request log says of a request (`loggedRequestOf`: method and path, no query, no header) and the
 * status; the route and the caller are added by the router and the authentication below it. A `traceparent`
 * header still makes it a child of the caller's trace.
 */
export const requestSpan = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    if (isUntraced(request)) return app
    const logged = loggedRequestOf(request)
    return Effect.useSpan(
      `http.server ${logged.method}`,
      {
        parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
        kind: "server",
        captureStackTrace: false
      },
      (span) => {
        span.attribute("http.request.method", logged.method)
        span.attribute("url.path", logged.path)
        span.attribute("url.scheme", request.headers["x-forwarded-proto"] === "https" ? "https" : "http")
        return Effect.onExit(Effect.withParentSpan(app, span), (exit) =>
          Effect.sync(() => span.attribute("http.response.status_code", HttpServerError.exitResponse(exit).status))
        )
      }
    )
  })
