import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import { UnsupportedMediaType, ValidationFailed } from "@talab/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { announcesBody } from "../http/BodyCheck.js"
import { PayloadTooLarge } from "../http/EdgeErrors.js"

/** A size limit of the parser; inside a part's content it surfaces as an InternalError around the limit. */
const isSizeLimit = (error: Multipart.MultipartError) => {
  const cause = error.cause as { _tag?: string; limit?: string } | undefined
  return (
    error.reason === "FileTooLarge" ||
    error.reason === "BodyTooLarge" ||
    (cause?._tag === "ReachedLimit" && cause.limit !== "MaxParts")
  )
}

const isMultipartFormData = (contentType: string) =>
  (contentType.split(";")[0] ?? "").trim().toLowerCase() === "multipart/form-data"

const isMultipartWithBoundary = (contentType: string | undefined) =>
  contentType !== undefined && /^multipart\/form-data\s*;(.*;)?\s*boundary=("[^"]+"|[^\s;"]+)/i.test(contentType)

/**
 * The bytes of the first file part named `field`; a part over the size limit is a 413. Every part is read
 * to the end: the parser waits until a part's content is consumed, and a request left half read would
 * have its connection torn down under the client's next request.
 */
const filePartBytes = (
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  field: string,
  missing: ValidationFailed
) =>
  parts.pipe(
    Stream.filter(Multipart.isFile),
    Stream.runFoldEffect(Option.none<Buffer>(), (found, file) =>
      file.key === field && Option.isNone(found)
        ? Effect.map(Stream.runCollect(file.content), (chunks) => Option.some(Buffer.concat(Chunk.toArray(chunks))))
        : Effect.as(Stream.runDrain(file.content), found)
    ),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(missing),
        onSome: Effect.succeed
      })
    ),
    Effect.catchTag(
      "MultipartError",
      (error): Effect.Effect<never, PayloadTooLarge | ValidationFailed> =>
        isSizeLimit(error) ? Effect.fail(new PayloadTooLarge()) : Effect.fail(missing)
    )
  )

/**
 * The uploaded file of a form upload (the avatar, a photo): a body of another type is refused unread (415), a
 * form without the file part `field` fails on `field` with `missingKey`.
 */
export const uploadedFile = (
  request: HttpServerRequest.HttpServerRequest,
  payload: unknown,
  field: string,
  missingKey: string
): Effect.Effect<Buffer, UnsupportedMediaType | PayloadTooLarge | ValidationFailed> =>
  Effect.suspend((): Effect.Effect<Buffer, UnsupportedMediaType | PayloadTooLarge | ValidationFailed> => {
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !isMultipartFormData(contentType)) {
      return Effect.fail(new UnsupportedMediaType())
    }
    const missing = ValidationFailed.field(field, missingKey)
    // The multipart parser throws outside the stream on a missing boundary; such a request has no file part.
    if (!isMultipartWithBoundary(contentType)) return Effect.fail(missing)
    // Nor does a form without a body. The server's patched multipasta ends such a parse with an error too; this
    // answers it unparsed, and also where the parser is not patched (the published testkit's dependencies).
    if (!announcesBody(request)) return Effect.fail(missing)
    return filePartBytes(payload as Stream.Stream<Multipart.Part, Multipart.MultipartError>, field, missing)
  })
