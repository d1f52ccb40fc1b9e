import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { Image } from "@talab/core"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ErrorCases } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  Ok,
  PayloadTooLargeResponse,
  ServiceUnavailableResponse,
  UnsupportedMediaTypeResponse
} from "../http/Envelope.js"
import { ApiRateLimit, Authentication } from "../http/Security.js"
import { entityView } from "../http/Views.js"
import { ImageView } from "./View.js"

/** The largest photo file accepted, in bytes (10 MiB); a larger one is a 413. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024
/*
 * The parser counts a part's headers into its size, so its cap leaves room for them; the exact 10 MiB rule on
 * the file's bytes is applied by the server's screening.
 */
const IMAGE_PART_LIMIT = IMAGE_MAX_BYTES + 64 * 1024

/** The answer of `POST /images`: the image as it is shown, and when it was uploaded. */
export const UploadedImage = Schema.Struct({
  ...ImageView.fields,
  ...entityView(Image.fields).pick("createdAt").fields
})

/** Photos: upload once, attach by id to a request, an offer or a chat message. */
export class ImagesApi extends HttpApiGroup.make("images")
  .annotate(OpenApi.Title, "Photos")
  .annotate(
    OpenApi.Description,
    "Photos are uploaded first (`POST /images`), then attached by id: `photo_ids` of `POST /requests` (0 to 6) and `POST /offers` (0 to 8), `attachment_ids` of a chat message (0 to 4). An image is attached once, to one thing; one left unattached for 24 hours is deleted. Each view shows attached images as `{id, url, thumbnail_url, width, height}`; the URLs are signed, work without a bearer token for at least an hour, and are given only to who may see the image: request photos to any signed-in user, offer photos to the request's owner and the offer's seller, chat attachments to the conversation's two parties."
  )
  .add(
    HttpApiEndpoint.post("uploadImage", "/images")
      .setPayload(
        HttpApiSchema.MultipartStream(Schema.Struct({ image: Multipart.SingleFileSchema }), {
          maxFileSize: Option.some(IMAGE_PART_LIMIT),
          maxParts: Option.some(5)
        })
      )
      .addSuccess(Ok(UploadedImage), { status: 201 })
      .addError(PayloadTooLargeResponse)
      .addError(UnsupportedMediaTypeResponse)
      .addError(BusinessRuleResponse)
      .addError(ServiceUnavailableResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      // No BodyCheck: a multipart body, with its own limit (http-server's RequestPipeline) and content checks.
      .middleware(ApiRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Upload a photo")
      .annotate(
        OpenApi.Description,
        "The signed-in user. A JPEG, PNG or WebP image (told by its content; HEIC is not decoded) of at most 10 MiB in the multipart field `image`. What is stored is re-encoded as WebP with the orientation applied, its longest side at most 2,048 px, every metadata block (EXIF with GPS, XMP, IPTC, comments, ICC) gone, and a thumbnail of the whole image at most 400 px on its longest side; `width` and `height` are the stored image's. The image belongs to the caller, attached to nothing, until a request, an offer or a message names it; after 24 hours unattached it is deleted."
      )
      .annotate(ErrorCases, {
        PAYLOAD_TOO_LARGE: "the image is over 10 MiB (a chunked body too, past 11 MiB)",
        UNSUPPORTED_MEDIA_TYPE: "the file is not a JPEG, PNG or WebP image, or the body is not multipart/form-data",
        VALIDATION_ERROR:
          "on `image`: no file part `image`; or, told from the header before any pixel is decoded, a side over 8,192 px, one side over 20 times the other, over 40,000,000 pixels, or a decoding too heavy (pixels × channels × bytes per sample, twice for interlaced or progressive, over 80 million); or a decoding stopped after 5 s; or an image that cannot be decoded (truncated, corrupt)",
        IMAGE_LIMIT_REACHED: "the caller already holds 50 images attached to nothing",
        SERVICE_UNAVAILABLE: "too many images are being decoded at once: try again after `Retry-After` seconds"
      })
  ) {}
