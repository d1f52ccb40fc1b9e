import * as Data from "effect/Data"

/** An uploaded file is not of an accepted type, judged by its content: an avatar must be JPEG, PNG or WebP. */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{}> {
  readonly code = "UNSUPPORTED_MEDIA_TYPE" as const
}

/**
 * The account cannot be deleted while one of its deals is still `accepted` (neither completed nor cancelled), on
 * either side: the other party would lose the deal they are in the middle of.
 */
export class OpenDealsExist extends Data.TaggedError("OpenDealsExist")<{}> {
  readonly code = "OPEN_DEALS_EXIST" as const
}
