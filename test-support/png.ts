import { crc32 } from "node:zlib"

/** One PNG chunk: length, type, data and the CRC of type and data. */
export const pngChunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/**
 * A zlib stream of `length` zero bytes, written directly (a literal zero, then copies of 258 bytes from one back)
 * as one fixed-Huffman block: milliseconds where zlib takes seconds for hundreds of megabytes.
 */
const zlibOfZeros = (length: number): Buffer => {
  const copies = Math.floor((length - 1) / 258)
  const literals = length - 1 - copies * 258
  const out = Buffer.alloc(2 + Math.ceil((3 + 8 + copies * 13 + literals * 8 + 7) / 8) + 4)
  out[0] = 0x78
  out[1] = 0x01
  let at = 16
  /** Appends the low `count` bits of `value`, most significant first, as deflate stores Huffman codes. */
  const bits = (value: number, count: number) => {
    for (let bit = count - 1; bit >= 0; bit--, at++) if ((value >> bit) & 1) out[at >> 3]! |= 1 << (at & 7)
  }
  bits(0b110, 3) // BFINAL 1, then BTYPE 01 (fixed Huffman) low bit first
  const literalZero = 0b00110000
  bits(literalZero, 8)
  for (let i = 0; i < copies; i++) bits(0b11000101_00000, 13) // length 258 (code 285), distance 1 (code 0)
  for (let i = 0; i < literals; i++) bits(literalZero, 8)
  bits(0, 7) // end of block
  out.writeUInt32BE((((length % 65521) << 16) | 1) >>> 0, out.length - 4)
  return out
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2]
] as const

const CHANNELS_OF_COLOUR_TYPE: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }

/** Bytes of filtered scanlines a PNG of these dimensions holds, each pass of Adam7 apart when interlaced. */
const scanlineBytes = (width: number, height: number, bitsPerPixel: number, interlaced: boolean) => {
  const rows = (w: number, h: number) => (w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8)))
  if (!interlaced) return rows(width, height)
  return ADAM7.reduce(
    (sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)),
    0
  )
}

/** The shape of a PNG: bit depth and colour type as in its IHDR (0 grey, 2 RGB, 4 grey and alpha, 6 RGBA). */
export interface PngShape {
  readonly bitDepth?: 1 | 8 | 16
  readonly colourType?: 0 | 2 | 4 | 6
  readonly interlaced?: boolean
}

/**
 * A valid PNG of `width` x `height` black pixels: a decompression bomb, at most a few MiB however large the image,
 * and as costly to decode as any PNG of its shape.
 */
export const pngOfZeros = (
  width: number,
  height: number,
  { bitDepth = 8, colourType = 0, interlaced = false }: PngShape = {}
): Uint8Array<ArrayBuffer> => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([bitDepth, colourType, 0, 0, interlaced ? 1 : 0], 8)
  const bitsPerPixel = bitDepth * CHANNELS_OF_COLOUR_TYPE[colourType]!
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", zlibOfZeros(scanlineBytes(width, height, bitsPerPixel, interlaced))),
    pngChunk("IEND", Buffer.alloc(0))
  ])
  return new Uint8Array(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer)
}
