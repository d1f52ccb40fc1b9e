import { Image } from "@talab/core"
import * as Schema from "effect/Schema"
import { entityView } from "../http/Views.js"

const SignedUrl = Schema.String.annotations({
  description:
    "A signed address of the file: works without a bearer token until the expiry it carries (at least an hour after it was answered); 403 once altered or expired"
})

/**
 * An attached photo as every view shows it (`photos` of a request or an offer, `attachments` of a message), in
 * the order it was attached: its stored size and two signed URLs.
 */
export const ImageView = Schema.Struct({
  ...entityView(Image.fields).pick("id", "width", "height").fields,
  url: SignedUrl,
  thumbnail_url: SignedUrl
}).annotations({ identifier: "Image" })

/** The photos of a request or an offer, or the attachments of a message: in the order they were attached. */
export const Photos = Schema.Array(ImageView)
