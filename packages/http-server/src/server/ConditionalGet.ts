import { createHash } from "node:crypto"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/*
 * Conditional GETs, so a client polling a body it already has is not sent it again: a 200 answer to a GET whose
 * body is in memory (the API's JSON, the OpenAPI document, the docs page) carries an ETag, a hash of its bytes,
 * and a GET whose If-None-Match names that tag is answered 304 with no body. `Cache-Control: private, no-cache`
 * lets the client's own cache keep the body and ask each time whether it is still current; shared caches keep
 * nothing that is one user's. The handler still runs: a 304 saves the body on the wire and the client's parse
 * of it, not the server's query, so a write is seen by the very next read as before. The auth routes keep
 * `no-store` and get no tag.
 * Uploaded files (server/Routes.ts) are tagged the same way by their own route, with their own caching.
 */

const REVALIDATE = "private, no-cache"

/** A strong tag: the same bytes, the same tag, on every instance (and for avatars, from any file store). */
export const entityTagOf = (body: Uint8Array) =>
  `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`

/** Whether If-None-Match names the tag: `*`, or a list compared weakly (RFC 9110, 13.1.2). */
export const ifNoneMatchNames = (header: string | undefined, tag: string) => {
  if (header === undefined) return false
  if (header.trim() === "*") return true
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === tag)
}

/** The response with its tag, or the 304 that replaces it when the client already holds those bytes. */
export const answerConditionally = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (request.method !== "GET" || response.status !== 200 || response.body._tag !== "Uint8Array") return response
  // A route that tags its own answers (uploaded files, cached for a year) has answered the condition already.
  if (response.headers.etag !== undefined) return response
  const tag = entityTagOf(response.body.body)
  const headers = { etag: tag, "cache-control": REVALIDATE }
  return ifNoneMatchNames(request.headers["if-none-match"], tag)
    ? HttpServerResponse.empty({ status: 304, headers: { ...response.headers, ...headers } })
    : HttpServerResponse.setHeaders(response, headers)
}
