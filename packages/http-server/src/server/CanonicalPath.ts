import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { canonicalPathOf } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/**
 * Any other spelling of a route than its canonical one (case, `//`, trailing `/`, `%61`, dot segments)
 * names no route: 404 NOT_FOUND, before the auth limit and every other rule, so none of them can
 * be skipped by spelling a path differently (docs/DECISIONS.md). An API middleware rather than part of
 * the request pipeline, so its 404 goes through the pre-response handler (headers, log line).
 */
export const CanonicalPathLive = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    canonicalPathOf(request.url) === undefined ? errorEnvelopeResponse("NOT_FOUND", 404) : app
  )
)
