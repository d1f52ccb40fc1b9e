import { IMAGE_MAX_BYTES } from "@talab/contract"
import * as Effect from "effect/Effect"
import { type DecodeLimits, decodeImage, type ImageRejected, type ImageType, screenImage } from "./Decode.js"

/**
 * A photo's limits: 10 MiB, 40,000,000 pixels, 8,192 px a side, 1:20, and 80 million decoding units (the avatar's
 * 100 million less a fifth: a photo is kept at 2,048 px and thumbnailed, which costs more than a 1,024 px avatar;
 * a phone camera's 4032 x 3024 progressive JPEG is 73 million), with a 5 s backstop; `pnpm bench image-cpu`
 * measures the worst input under 1 s of CPU.
 */
const photoLimits: DecodeLimits = {
  maxBytes: IMAGE_MAX_BYTES,
  maxPixels: 40_000_000,
  maxInputSide: 8192,
  maxAspectRatio: 20,
  maxDecodeWork: 80_000_000,
  decodeTimeoutSeconds: 5
}

/** Longest side of a stored photo. */
const PHOTO_MAX_SIDE = 2048
/** Longest side of its thumbnail: the whole photo, shrunk, never cropped. */
const THUMBNAIL_MAX_SIDE = 400

/** One re-encoded file of a photo. */
interface EncodedImage {
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
}

/** A photo re-encoded without metadata, and its thumbnail, both WebP. */
export interface ProcessedPhoto {
  readonly contentType: "image/webp"
  readonly full: EncodedImage
  readonly thumbnail: EncodedImage
}

const encoded = ({ data, info }: { data: Buffer; info: { width: number; height: number } }): EncodedImage => ({
  bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  width: info.width,
  height: info.height
})

/** The checks that need no decoder (size, magic bytes), before waiting for a decoding slot. */
export const screenPhoto = (bytes: Uint8Array) => screenImage(bytes, photoLimits.maxBytes)

/**
 * Decodes a photo once (orientation applied, shrunk to fit {@link PHOTO_MAX_SIDE}), then encodes the stored
 * image and its thumbnail from those pixels: the second costs a shrink of at most 2,048 px, never a decoding.
 */
export const decodePhoto = (bytes: Uint8Array, type: ImageType): Effect.Effect<ProcessedPhoto, ImageRejected> =>
  decodeImage(bytes, type, photoLimits, async (image, sharp) => {
    const pixels = await image
      .resize({ width: PHOTO_MAX_SIDE, height: PHOTO_MAX_SIDE, fit: "inside", withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true })
    const raw = { raw: { width: pixels.info.width, height: pixels.info.height, channels: pixels.info.channels } }
    const [full, thumbnail] = await Promise.all([
      sharp(pixels.data, raw).webp({ quality: 82, effort: 2 }).toBuffer({ resolveWithObject: true }),
      sharp(pixels.data, raw)
        .resize({ width: THUMBNAIL_MAX_SIDE, height: THUMBNAIL_MAX_SIDE, fit: "inside", withoutEnlargement: true })
        .webp({ quality: 75, effort: 2 })
        .toBuffer({ resolveWithObject: true })
    ])
    return { contentType: "image/webp", full: encoded(full), thumbnail: encoded(thumbnail) } as const
  }).pipe(Effect.withSpan("decodePhoto"))
