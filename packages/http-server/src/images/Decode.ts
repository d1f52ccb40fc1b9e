import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type SharpModule from "sharp"
import type { Sharp } from "sharp"
import { loadSharp } from "./Sharp.js"

/*
 * What every uploaded image goes through, the avatar and the photos alike: the type told by magic bytes, the
 * header's dimensions and decoding cost checked before any pixel is decoded, then one bounded decoding by sharp
 * (orientation applied, re-encoded, so no metadata survives). What is made of the decoded pixels is the caller's.
 */

/** An image format accepted for upload, as told by its first bytes. */
export type ImageType = "jpeg" | "png" | "webp"

/** Why an upload was refused. */
export type ImageRejectedReason =
  | "too_large"
  | "unsupported_type"
  | "too_many_pixels"
  | "side_too_long"
  | "aspect_ratio"
  | "too_costly"
  | "corrupt"

/** The upload cannot become an image; `reason` says why. */
export class ImageRejected extends Data.TaggedError("ImageRejected")<{
  readonly reason: ImageRejectedReason
}> {}

/** Limits of one kind of upload. */
export interface DecodeLimits {
  /** Largest upload accepted, in bytes. */
  readonly maxBytes: number
  /** Largest decoded size accepted (width x height), against decompression bombs. */
  readonly maxPixels: number
  /** Longest side of an upload accepted, in pixels. */
  readonly maxInputSide: number
  /** Longest side over shortest side accepted: a sliver of an image costs far more to shrink than its pixels say. */
  readonly maxAspectRatio: number
  /** Largest decoding work accepted, in {@link decodeWork} units, so that no accepted image takes long to decode. */
  readonly maxDecodeWork: number
  /**
   * Seconds (wall clock, so generous: a busy host stretches every decoding) after which a decoding is stopped: a
   * backstop should the header have misled the estimate. It stops a streamed decoding; an interlaced image is loaded
   * whole before it can act, which is why the estimate counts interlacing twice.
   */
  readonly decodeTimeoutSeconds: number
}

/** Bytes one sample of each pixel depth sharp reports takes once decoded. */
const bytesPerSample = (depth: string) => {
  switch (depth) {
    case "char":
    case "uchar":
      return 1
    case "short":
    case "ushort":
      return 2
    case "double":
    case "complex":
      return 8
    case "dpcomplex":
      return 16
    default:
      return 4
  }
}

/** What an image's header says about its decoding. */
interface ImageHeader {
  readonly width: number
  readonly height: number
  readonly channels: number
  readonly depth: string
  readonly isProgressive: boolean
}

/**
 * The work of decoding an image, estimated from its header: the bytes its pixels take once decoded, twice that for
 * an interlaced PNG or a progressive JPEG, which are decoded whole in memory before they can be shrunk (measured:
 * a 40-megapixel 16-bit RGBA interlaced PNG of 600 KiB costs 2.7 s of CPU; the same in 8-bit RGBA without
 * interlacing 0.7 s).
 */
const decodeWork = (header: ImageHeader) =>
  header.width * header.height * header.channels * bytesPerSample(header.depth) * (header.isProgressive ? 2 : 1)

const JPEG_MAGIC = [0xff, 0xd8, 0xff]
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const RIFF_MAGIC = [0x52, 0x49, 0x46, 0x46] // "RIFF"
const WEBP_MAGIC = [0x57, 0x45, 0x42, 0x50] // "WEBP", after the 4-byte RIFF chunk size

const hasBytesAt = (bytes: Uint8Array, offset: number, expected: ReadonlyArray<number>): boolean =>
  bytes.length >= offset + expected.length && expected.every((byte, index) => bytes[offset + index] === byte)

/** Tells JPEG, PNG or WebP by magic bytes, whatever the file name or declared content type; `undefined` otherwise. */
export const detectImageType = (bytes: Uint8Array): ImageType | undefined => {
  if (hasBytesAt(bytes, 0, JPEG_MAGIC)) return "jpeg"
  if (hasBytesAt(bytes, 0, PNG_MAGIC)) return "png"
  if (hasBytesAt(bytes, 0, RIFF_MAGIC) && hasBytesAt(bytes, 8, WEBP_MAGIC)) return "webp"
  return undefined
}

const reject = (reason: ImageRejectedReason) => new ImageRejected({ reason })

/** A sharp that cannot be loaded is the server's defect, never the upload's fault. */
const sharpLoaded = Effect.promise(loadSharp)

/** Reads only the header: dimensions and sharp's own idea of the format, without decoding pixels. */
const readHeader = (bytes: Uint8Array) =>
  Effect.flatMap(sharpLoaded, (sharp) =>
    Effect.tryPromise({
      // The pixel limit is checked by us from the header, so that a bomb is told apart from a broken file.
      try: () => sharp(bytes, { limitInputPixels: false }).metadata(),
      catch: () => reject("corrupt")
    })
  )

/** sharp stops a pipeline past its timeout with "timeout: N% complete". */
const isTimeout = (error: unknown) => error instanceof Error && error.message.startsWith("timeout")

/** The checks that need no decoder: size and magic bytes. Cheap enough to run before waiting for one. */
export const screenImage = (bytes: Uint8Array, maxBytes: number): Effect.Effect<ImageType, ImageRejected> => {
  if (bytes.byteLength > maxBytes) return Effect.fail(reject("too_large"))
  const type = detectImageType(bytes)
  return type === undefined ? Effect.fail(reject("unsupported_type")) : Effect.succeed(type)
}

/** The header checks, in order: each refusal names the first limit the image breaks. */
const headerRefusal = (header: ImageHeader, limits: DecodeLimits): ImageRejectedReason | undefined => {
  const longest = Math.max(header.width, header.height)
  const shortest = Math.min(header.width, header.height)
  if (longest > limits.maxInputSide) return "side_too_long"
  if (longest > shortest * limits.maxAspectRatio) return "aspect_ratio"
  if (header.width * header.height > limits.maxPixels) return "too_many_pixels"
  if (decodeWork(header) > limits.maxDecodeWork) return "too_costly"
  return undefined
}

/**
 * Decodes an upload that passed {@link screenImage}. From the header alone, before any pixel is decoded, refuses
 * a side over `maxInputSide`, a ratio of sides over `maxAspectRatio`, more than `maxPixels` and a decoding work
 * over `maxDecodeWork`; then hands `render` (with sharp itself) a sharp pipeline of the image with its EXIF orientation applied, under
 * the pixel limit and the timeout (a decoding past `decodeTimeoutSeconds`, or broken pixel data, is refused).
 * Nothing asks sharp to keep metadata, so whatever `render` encodes has no EXIF, GPS, XMP, IPTC, comment or ICC.
 */
export const decodeImage = <A>(
  bytes: Uint8Array,
  type: ImageType,
  limits: DecodeLimits,
  render: (image: Sharp, sharp: typeof SharpModule) => Promise<A>
): Effect.Effect<A, ImageRejected> =>
  Effect.gen(function* () {
    const header = yield* readHeader(bytes)
    // sharp sniffs the format itself; a disagreement means a crafted file, so it never reaches another decoder.
    if (header.format !== type) return yield* reject("unsupported_type")
    const refusal = headerRefusal(header, limits)
    if (refusal !== undefined) return yield* reject(refusal)
    const sharp = yield* sharpLoaded
    return yield* Effect.tryPromise({
      try: () =>
        // limitInputPixels repeats the header check inside the decoder itself. failOn "error" refuses
        // truncated or broken pixel data; "warning" would also refuse many real camera JPEGs over benign
        // libjpeg warnings.
        render(
          sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: "error" })
            .timeout({ seconds: limits.decodeTimeoutSeconds })
            .autoOrient(),
          sharp
        ),
      catch: (error) => reject(isTimeout(error) ? "too_costly" : "corrupt")
    })
  }).pipe(Effect.withSpan("decodeImage"))
