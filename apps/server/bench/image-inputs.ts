/*
 * The worst image inputs of an upload's size, shared by the avatar and photo CPU scenarios: noise, bombs, 16-bit,
 * interlaced, progressive, lying headers and the 1 x 39,000,000 sliver the header checks refuse.
 */
import { randomBytes } from "node:crypto"
import { crc32 } from "node:zlib"
import sharp from "sharp"
import { pngOfZeros } from "../../../test-support/png.js"
import { largePng } from "../test/support/images.js"

/** Noise, drawn on a smaller canvas and blown up to `width` x `height`, so that lossy encoders keep it within 5 MiB. */
export const noise = (width: number, height: number) =>
  sharp(randomBytes(1024 * 1024 * 3), { raw: { width: 1024, height: 1024, channels: 3 } }).resize(width, height, {
    kernel: "nearest"
  })

/** A PNG of greyscale noise at one bit a pixel: 4 MiB that no deflate can shrink. */
const onebitNoisePng = (width: number, height: number) =>
  sharp(randomBytes(width * height), { raw: { width, height, channels: 1 } })
    .threshold(128)
    .png({ palette: false, colours: 2, compressionLevel: 9 })
    .toBuffer()

/** `png` with its IHDR saying `width` x `height`, whatever its pixel data holds. */
const withClaimedSize = (png: Uint8Array, width: number, height: number) => {
  const bytes = Buffer.from(png)
  bytes.writeUInt32BE(width, 16)
  bytes.writeUInt32BE(height, 20)
  bytes.writeUInt32BE(crc32(bytes.subarray(12, 29)), 29)
  return bytes
}

export interface Input {
  readonly name: string
  readonly bytes: Uint8Array
}

export const inputs = async (): Promise<ReadonlyArray<Input>> => [
  { name: "PNG 1 x 39,000,000 grey (refused)", bytes: pngOfZeros(1, 39_000_000) },
  { name: "PNG 8192 x 4000 1-bit noise", bytes: await onebitNoisePng(8192, 4000) },
  { name: "PNG 7200 x 5400 grey ramp", bytes: largePng(7200, 5400) },
  { name: "PNG 8192 x 3051 RGBA zeros (bomb)", bytes: pngOfZeros(8192, 3051, { colourType: 6 }) },
  { name: "PNG 8192 x 4882 RGBA zeros (refused)", bytes: pngOfZeros(8192, 4882, { colourType: 6 }) },
  { name: "PNG 8192 x 4882 grey interlaced", bytes: pngOfZeros(8192, 4882, { interlaced: true }) },
  { name: "PNG 3535 x 3535 RGBA interlaced", bytes: pngOfZeros(3535, 3535, { colourType: 6, interlaced: true }) },
  { name: "PNG 8192 x 1525 16-bit RGBA", bytes: pngOfZeros(8192, 1525, { bitDepth: 16, colourType: 6 }) },
  {
    name: "PNG 8192 x 4882 16-bit RGBA interlaced (refused)",
    bytes: pngOfZeros(8192, 4882, { bitDepth: 16, colourType: 6, interlaced: true })
  },
  { name: "PNG 8192 x 410 RGBA (1:20)", bytes: pngOfZeros(8192, 410, { colourType: 6 }) },
  { name: "PNG header 8192 x 4882, 64 px of data", bytes: withClaimedSize(pngOfZeros(8, 8), 8192, 4882) },
  { name: "PNG header 64 x 64, 40 MP of data", bytes: withClaimedSize(pngOfZeros(8192, 4882), 64, 64) },
  { name: "JPEG 8192 x 4069 noise", bytes: await noise(8192, 4069).jpeg({ quality: 30 }).toBuffer() },
  {
    name: "JPEG 4000 x 4000 progressive noise",
    bytes: await noise(4000, 4000).jpeg({ quality: 40, progressive: true }).toBuffer()
  },
  { name: "WebP 8192 x 4069 noise", bytes: await noise(8192, 4069).webp({ quality: 40 }).toBuffer() }
]
