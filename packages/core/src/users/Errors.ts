import * as Data from "effect/Data"

/** An uploaded file is not of an accepted type, judged by its content: an avatar must be JPEG, PNG or WebP. */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{}> {
  readonly code = "UNSUPPORTED_MEDIA_TYPE" as const
}
