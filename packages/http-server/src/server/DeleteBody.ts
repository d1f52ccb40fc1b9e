import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { isJsonContentType } from "../http/JsonBody.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/*
 * A DELETE that sends a body sends JSON (DELETE /users/me reads its code from one): any other declared type is
 * 415 here, before the framework would try to parse it as a form (the body check of the endpoints skips DELETE).
 */
export const DeleteBodyLive = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const contentType = request.headers["content-type"]
    return request.method === "DELETE" && contentType !== undefined && !isJsonContentType(contentType)
      ? errorEnvelopeResponse("UNSUPPORTED_MEDIA_TYPE", 415)
      : app
  })
)
