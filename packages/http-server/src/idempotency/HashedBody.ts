import type { IncomingMessage } from "node:http"
import { PassThrough } from "node:stream"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { uploadBodyLimitOf } from "../http/BodyCheck.js"
import { pathOf } from "../http/RequestPath.js"

const BOUNDARY = /;\s*boundary=(?:"([^"]+)"|([^\s;"]+))/i

/** The bytes with every occurrence of `needle` taken out. */
const without = (bytes: Buffer, needle: Buffer) => {
  const pieces: Array<Buffer> = []
  let from = 0
  for (let at = bytes.indexOf(needle, from); at !== -1; at = bytes.indexOf(needle, from)) {
    pieces.push(bytes.subarray(from, at))
    from = at + needle.length
  }
  pieces.push(bytes.subarray(from))
  return Buffer.concat(pieces)
}

/**
 * A multipart body, read whole (within the route's body limit) and handed back to the endpoint's parser
 * as a stream of the same bytes. Its boundary is left out of the hash: a client picks a fresh random one
 * each time it sends the same form (fetch does), and it cannot occur inside a part by construction.
 */
const multipartBody = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function* () {
    // Announced over the limit: left unread for the endpoint's own 413 (reading it here would cut the connection).
    if (Number(request.headers["content-length"] ?? 0) > limit) return undefined
    const read = yield* Effect.either(request.arrayBuffer)
    if (Either.isLeft(read)) return undefined
    const bytes = Buffer.from(read.right)
    const holder = request as unknown as { source: IncomingMessage }
    // The request reads its method, URL, headers and address from its source too.
    const { method, url, headers, rawHeaders, httpVersion, socket } = holder.source
    const again = Object.assign(new PassThrough().end(bytes), { method, url, headers, rawHeaders, httpVersion, socket })
    holder.source = again as unknown as IncomingMessage
    const match = BOUNDARY.exec(request.headers["content-type"] ?? "")
    const boundary = match?.[1] ?? match?.[2]
    return boundary === undefined ? bytes : without(bytes, Buffer.from(boundary))
  })

/**
 * The body bytes a key's request hash covers, or undefined when the body cannot be read (too large, cut
 * off). A JSON body is read once and kept by the platform, so reading it here costs the endpoint nothing.
 */
export const bodyForHash = (request: HttpServerRequest.HttpServerRequest) =>
  uploadBodyLimitOf(pathOf(request.url)) !== undefined
    ? multipartBody(request, uploadBodyLimitOf(pathOf(request.url))!)
    : Effect.map(Effect.either(request.text), Either.getOrUndefined)
