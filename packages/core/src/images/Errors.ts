import * as Data from "effect/Data"

/** The user already holds the most unattached images allowed (`max`); one must be attached or expire first. */
export class ImageLimitReached extends Data.TaggedError("ImageLimitReached")<{ readonly max: number }> {
  readonly code = "IMAGE_LIMIT_REACHED" as const
}
