import { randomUUID } from "node:crypto"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

/** A client's own X-Request-Id is kept when it is a plain token; anything else could forge log lines. */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const given = request.headers["x-request-id"]
  return given !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID()
}
