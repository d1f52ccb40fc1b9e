import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { recordHttpRequest } from "./Metrics.js"

/** Requests traced by nobody: probes polled every few seconds, and the socket whose request lasts for hours. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/health/live", "/health/ready", "/ws"])

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

export const isUntraced = (request: HttpServerRequest.HttpServerRequest) => UNTRACED_PATHS.has(pathOf(request.url))

/**
 * Where the router writes the matched route's pattern (`http.route`) when no request span is there to take
 * it: the router annotates whatever span is the parent, and without tracing there is none. It exports
 * nothing, and is used only while tracing is off.
 */
class RouteProbe implements Tracer.Span {
  readonly _tag = "Span"
  readonly name = "route-probe"
  readonly spanId = "route-probe"
  readonly traceId = "route-probe"
  readonly parent = Option.none<Tracer.AnySpan>()
  readonly context = Context.empty()
  readonly status: Tracer.SpanStatus = { _tag: "Started", startTime: 0n }
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<Tracer.SpanLink> = []
  readonly sampled = false
  readonly kind = "internal"
  attribute(key: string, value: unknown) {
    this.attributes.set(key, value)
  }
  end() {}
  event() {}
  addLinks() {}
}

const UNMATCHED = "unmatched"

const routeOf = (span: Tracer.Span | undefined, request: HttpServerRequest.HttpServerRequest) => {
  const route = span?.attributes.get("http.route")
  if (typeof route === "string") return route
  const path = pathOf(request.url)
  // Any other path a client sent is unbounded: it must never become a label.
  return UNTRACED_PATHS.has(path) ? path : UNMATCHED
}

/**
 * Counts every answered request and its latency by method, route pattern and final status (read when the
 * response is written, after the pipeline's envelope). With tracing on, the route comes from the request's
 * span; without it, from a probe that stands in as the parent span.
 */
export const requestMetrics =
  (options: { readonly tracing: boolean }) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.withFiberRuntime((fiber) => {
      const startedAt = performance.now()
      const parent = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
      const span = parent._tag === "Some" && parent.value._tag === "Span" ? parent.value : undefined
      const probe = span === undefined && !options.tracing ? new RouteProbe() : undefined
      const counted = Effect.zipRight(
        HttpApp.appendPreResponseHandler((request, response) =>
          Effect.sync(() => {
            const seconds = (performance.now() - startedAt) / 1000
            recordHttpRequest(request.method, routeOf(span ?? probe, request), response.status, seconds)
            return response
          })
        ),
        app
      )
      return probe === undefined ? counted : Effect.withParentSpan(counted, probe)
    })
