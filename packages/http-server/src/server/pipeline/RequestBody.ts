import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { JSON_BODY_LIMIT, uploadBodyLimitOf } from "../../http/BodyCheck.js"
import { installLimitedJsonReader } from "../../http/JsonBody.js"
import { pathOf } from "../../http/RequestPath.js"

/** A GET or HEAD has no body any route reads: an endpoint's GET payload is its query string. */
const hasNoBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "GET" || request.method === "HEAD"

/**
 * Replaces the request's JSON reader before anything reads the body, so that the body check and then the
 * framework's payload decoding share one read and one parse, a `+json` body is decoded as JSON, and a body
 * nested too deep is refused while it arrives (`JsonBody.ts`). The reader takes its size limit when it first
 * runs, so inside `underBodySizeLimit`.
 */
export const shareOneJsonRead = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.sync(() => {
    if (!hasNoBody(request)) installLimitedJsonReader(request)
  })

/** The app with the request's body read under the size limit of its path (an upload's own, else the JSON one). */
export const underBodySizeLimit = <E, R>(app: HttpApp.Default<E, R>, request: HttpServerRequest.HttpServerRequest) =>
  hasNoBody(request)
    ? app
    : HttpIncomingMessage.withMaxBodySize(app, Option.some(uploadBodyLimitOf(pathOf(request.url)) ?? JSON_BODY_LIMIT))
