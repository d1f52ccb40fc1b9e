import * as Effect from "effect/Effect"
import {
  type DecodeLimits,
  decodeImage,
  detectImageType,
  type ImageRejected,
  type ImageType,
  screenImage
} from "../images/Decode.js"

export { detectImageType }
/** An image format accepted as an avatar upload, as told by its first bytes. */
export type AvatarImageType = ImageType
/** The upload cannot become an avatar; `reason` says why. */
export { ImageRejected as AvatarRejected } from "../images/Decode.js"

/** Limits applied by {@link processAvatar}; each falls back to {@link defaultAvatarLimits}. */
export interface AvatarOptions extends Partial<DecodeLimits> {
  /** The output fits within a square of this side, never enlarged. */
  readonly maxSide?: number
}

/**
 * Default limits: 5 MiB (decisions.md section 2), 40 megapixels, 1024 px out; 8,192 px a side, 1:20, and 100 million
 * decoding units (33 megapixels of 8-bit RGB; the worst accepted input costs about 0.8 s of one core, measured by
 * `pnpm bench avatar-cpu`), with a 5 s backstop.
 */
const defaultAvatarLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxPixels: 40_000_000,
  maxSide: 1024,
  maxInputSide: 8192,
  maxAspectRatio: 20,
  maxDecodeWork: 100_000_000,
  decodeTimeoutSeconds: 5
} as const

/** A re-encoded avatar, ready to store under a server-made name. */
export interface ProcessedAvatar {
  readonly bytes: Uint8Array
  readonly contentType: "image/webp"
  readonly extension: "webp"
}

const definedOnly = (options: AvatarOptions): AvatarOptions =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))

const limitsOf = (options: AvatarOptions) => ({ ...defaultAvatarLimits, ...definedOnly(options) })

/** The checks that need no decoder: size and magic bytes. Cheap enough to run before waiting for one. */
export const screenAvatar = (bytes: Uint8Array, options: AvatarOptions = {}) =>
  screenImage(bytes, limitsOf(options).maxBytes)

/**
 * Decodes an upload that passed {@link screenAvatar} under the limits (images/Decode.ts), applies the EXIF
 * orientation, shrinks to fit `maxSide` and re-encodes as WebP without any metadata.
 */
export const decodeAvatar = (
  bytes: Uint8Array,
  type: AvatarImageType,
  options: AvatarOptions = {}
): Effect.Effect<ProcessedAvatar, ImageRejected> => {
  const limits = limitsOf(options)
  return decodeImage(bytes, type, limits, (image) =>
    image
      .resize({ width: limits.maxSide, height: limits.maxSide, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 82 })
      .toBuffer()
  ).pipe(
    Effect.map(
      (webp) =>
        ({
          bytes: new Uint8Array(webp.buffer, webp.byteOffset, webp.byteLength),
          contentType: "image/webp",
          extension: "webp"
        }) as const
    ),
    Effect.withSpan("decodeAvatar")
  )
}

/**
 * Turns an uploaded file into a stored avatar: refuses files over `maxBytes`, anything that is not JPEG,
 * PNG or WebP by content, images over `maxPixels` and corrupt images; then applies the EXIF orientation,
 * shrinks to fit `maxSide` and re-encodes as WebP without any metadata.
 */
export const processAvatar = (
  bytes: Uint8Array,
  options: AvatarOptions = {}
): Effect.Effect<ProcessedAvatar, ImageRejected> =>
  Effect.flatMap(screenAvatar(bytes, options), (type) => decodeAvatar(bytes, type, options))
