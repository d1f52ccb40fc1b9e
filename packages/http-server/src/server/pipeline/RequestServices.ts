import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"

/**
 * What a request's handling reads from its context: the request, its scope, the platform's services for
 * responses (files, tags) and the request's span (telemetry). The server's context holds every service of the
 * app (about 45), and the framework copies the request's context at each step (router, middlewares,
 * handlers); everything else a route or middleware uses it took when it was built, and a handler runs in its
 * group's context. So the request runs in these alone, copied cheaply.
 */
export type RequestServices =
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

/** Runs `app` in the request's own services only, not in a copy of every service of the server. */
export const inRequestServicesOnly = <A, E, R extends RequestServices>(app: Effect.Effect<A, E, R>) =>
  Effect.mapInputContext(app, (context: Context.Context<R>) => pickRequestServices(context) as Context.Context<R>)
