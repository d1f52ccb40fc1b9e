import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"
import { AVATAR_BODY_LIMIT, JSON_BODY_LIMIT } from "../../http/BodyCheck.js"
import { installLimitedJsonReader } from "../../http/JsonBody.js"
import { AVATAR_PATH, pathOf } from "../../http/RequestPath.js"

/** A GET or HEAD has no body any route reads: an endpoint's GET payload is its query string. */
const hasNoBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "GET" || request.method === "HEAD"

/**
 * The app with the request's body read under the limits of its path (the avatar's own, else the JSON one). The
 * request's JSON reader is replaced first, so that the body check and then the framework's payload decoding
 * share one read and one parse, and a body nested too deep is refused while it arrives (`JsonBody.ts`); the
 * reader takes its size limit when it first runs, so inside the limit set here.
 */
export const underBodyLimits = <E, R>(app: HttpApp.Default<E, R>, request: HttpServerRequest.HttpServerRequest) => {
  if (hasNoBody(request)) return app
  installLimitedJsonReader(request)
  return HttpIncomingMessage.withMaxBodySize(
    app,
    Option.some(pathOf(request.url) === AVATAR_PATH ? AVATAR_BODY_LIMIT : JSON_BODY_LIMIT)
  )
}
