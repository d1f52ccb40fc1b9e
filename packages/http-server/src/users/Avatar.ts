import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { loadSharp } from "./Sharp.js"

/** An image format accepted as an avatar upload, as told by its first bytes. */
export type AvatarImageType = "jpeg" | "png" | "webp"

/** Why an avatar upload was refused. */
export type AvatarRejectedReason = "too_large" | "unsupported_type" | "too_many_pixels" | "corrupt"

/** The upload cannot become an avatar; `reason` says why. */
export class AvatarRejected extends Data.TaggedError("AvatarRejected")<{
  readonly reason: AvatarRejectedReason
}> {}

/** Limits applied by {@link processAvatar}; each falls back to {@link defaultAvatarLimits}. */
export interface AvatarOptions {
  /** Largest upload accepted, in bytes. */
  readonly maxBytes?: number
  /** Largest decoded size accepted (width x height), against decompression bombs. */
  readonly maxPixels?: number
  /** The output fits within a square of this side, never enlarged. */
  readonly maxSide?: number
}

/** Default limits: 5 MiB (decisions.md section 2), 40 megapixels, 1024 px. */
const defaultAvatarLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxPixels: 40_000_000,
  maxSide: 1024
} as const

/** A re-encoded avatar, ready to store under a server-made name. */
export interface ProcessedAvatar {
  readonly bytes: Uint8Array
  readonly contentType: "image/webp"
  readonly extension: "webp"
}

const JPEG_MAGIC = [0xff, 0xd8, 0xff]
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const RIFF_MAGIC = [0x52, 0x49, 0x46, 0x46] // "RIFF"
const WEBP_MAGIC = [0x57, 0x45, 0x42, 0x50] // "WEBP", after the 4-byte RIFF chunk size

const hasBytesAt = (bytes: Uint8Array, offset: number, expected: ReadonlyArray<number>): boolean =>
  bytes.length >= offset + expected.length && expected.every((byte, index) => bytes[offset + index] === byte)

/** Tells JPEG, PNG or WebP by magic bytes, whatever the file name or declared content type; `undefined` otherwise. */
export const detectImageType = (bytes: Uint8Array): AvatarImageType | undefined => {
  if (hasBytesAt(bytes, 0, JPEG_MAGIC)) return "jpeg"
  if (hasBytesAt(bytes, 0, PNG_MAGIC)) return "png"
  if (hasBytesAt(bytes, 0, RIFF_MAGIC) && hasBytesAt(bytes, 8, WEBP_MAGIC)) return "webp"
  return undefined
}

const reject = (reason: AvatarRejectedReason) => new AvatarRejected({ reason })

/** Reads only the header: dimensions and sharp's own idea of the format, without decoding pixels. */
const readHeader = (bytes: Uint8Array) =>
  Effect.flatMap(sharpLoaded, (sharp) =>
    Effect.tryPromise({
      // The pixel limit is checked by us from the header, so that a bomb is told apart from a broken file.
      try: () => sharp(bytes, { limitInputPixels: false }).metadata(),
      catch: () => reject("corrupt")
    })
  )

/** A sharp that cannot be loaded is the server's defect, never the upload's fault. */
const sharpLoaded = Effect.promise(loadSharp)

const reencodeAsWebp = (bytes: Uint8Array, maxPixels: number, maxSide: number) =>
  Effect.flatMap(sharpLoaded, (sharp) =>
    Effect.tryPromise({
      try: () =>
        // limitInputPixels repeats the header check inside the decoder itself. failOn "error" refuses
        // truncated or broken pixel data; "warning" would also refuse many real camera JPEGs over benign
        // libjpeg warnings. Nothing asks sharp to keep metadata, so EXIF, GPS, XMP and ICC are all dropped.
        sharp(bytes, { limitInputPixels: maxPixels, failOn: "error" })
          .autoOrient()
          .resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true })
          .webp({ quality: 82 })
          .toBuffer(),
      catch: () => reject("corrupt")
    })
  )

/** The checks that need no decoder: size and magic bytes. Cheap enough to run before waiting for one. */
export const screenAvatar = (
  bytes: Uint8Array,
  options: AvatarOptions = {}
): Effect.Effect<AvatarImageType, AvatarRejected> => {
  if (bytes.byteLength > (options.maxBytes ?? defaultAvatarLimits.maxBytes)) return Effect.fail(reject("too_large"))
  const type = detectImageType(bytes)
  return type === undefined ? Effect.fail(reject("unsupported_type")) : Effect.succeed(type)
}

/**
 * Decodes an upload that passed {@link screenAvatar}: refuses images over `maxPixels` and corrupt images; then
 * applies the EXIF orientation, shrinks to fit `maxSide` and re-encodes as WebP without any metadata.
 */
export const decodeAvatar = (
  bytes: Uint8Array,
  type: AvatarImageType,
  options: AvatarOptions = {}
): Effect.Effect<ProcessedAvatar, AvatarRejected> =>
  Effect.gen(function* () {
    const maxPixels = options.maxPixels ?? defaultAvatarLimits.maxPixels
    const maxSide = options.maxSide ?? defaultAvatarLimits.maxSide

    const header = yield* readHeader(bytes)
    // sharp sniffs the format itself; a disagreement means a crafted file, so it never reaches another decoder.
    if (header.format !== type) return yield* reject("unsupported_type")
    if (header.width * header.height > maxPixels) return yield* reject("too_many_pixels")

    const webp = yield* reencodeAsWebp(bytes, maxPixels, maxSide)
    return {
      bytes: new Uint8Array(webp.buffer, webp.byteOffset, webp.byteLength),
      contentType: "image/webp",
      extension: "webp"
    } as const
  }).pipe(Effect.withSpan("decodeAvatar"))

/**
 * Turns an uploaded file into a stored avatar: refuses files over `maxBytes`, anything that is not JPEG,
 * PNG or WebP by content, images over `maxPixels` and corrupt images; then applies the EXIF orientation,
 * shrinks to fit `maxSide` and re-encodes as WebP without any metadata.
 */
export const processAvatar = (
  bytes: Uint8Array,
  options: AvatarOptions = {}
): Effect.Effect<ProcessedAvatar, AvatarRejected> =>
  Effect.flatMap(screenAvatar(bytes, options), (type) => decodeAvatar(bytes, type, options))
