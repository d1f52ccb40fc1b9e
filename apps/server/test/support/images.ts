import { deflateSync } from "node:zlib"
import { pngChunk as chunk } from "../../../../test-support/png.js"

/**
 * A valid 8-bit greyscale PNG of `width` x `height` pixels whose rows are a repeating ramp: costly to decode
 * (every pixel is inflated and resized) yet a few hundred KiB, so it fits the 5 MiB upload limit.
 */
export const largePng = (width: number, height: number): Uint8Array<ArrayBuffer> => {
  const row = Buffer.alloc(width + 1)
  for (let x = 0; x < width; x++) row[x + 1] = x & 0xff
  const raw = Buffer.alloc(row.length * height)
  for (let y = 0; y < height; y++) row.copy(raw, y * row.length)
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 0 // greyscale
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0))
  ])
  return new Uint8Array(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer)
}

/** The chunk ids of a RIFF/WebP file, in order. */
export const webpChunks = (bytes: Uint8Array) => {
  const chunks: Array<string> = []
  const view = Buffer.from(bytes)
  for (let offset = 12; offset + 8 <= view.length; ) {
    chunks.push(view.toString("latin1", offset, offset + 4))
    const size = view.readUInt32LE(offset + 4)
    offset += 8 + size + (size % 2)
  }
  return chunks
}
