import { UnsupportedMediaType, ValidationFailed } from "@talab/core"
import { PayloadTooLarge } from "../http/EdgeErrors.js"
import type { ImageRejected } from "./Decode.js"

/**
 * A refused upload as the API answers it: 413, 415, or 400 on `field` with the problem `<prefix>_<reason>`
 * (`avatar_corrupt`, `image_side_too_long`, …).
 */
export const rejectionAsDomainError = (rejected: ImageRejected, field: string, prefix: string) => {
  switch (rejected.reason) {
    case "too_large":
      return new PayloadTooLarge()
    case "unsupported_type":
      return new UnsupportedMediaType()
    default:
      return ValidationFailed.field(field, `${prefix}_${rejected.reason}`)
  }
}
