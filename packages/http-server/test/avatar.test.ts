import { crc32 } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { pngOfZeros } from "../../../test-support/png.js"
import { AvatarRejected, detectImageType, processAvatar } from "../src/users/Avatar.js"

const MiB = 1024 * 1024

/** Noise compresses badly, so a cut through the file lands in pixel data rather than the header. */
const noisePixels = (width: number, height: number): Buffer => {
  const pixels = Buffer.alloc(width * height * 3)
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + (i >> 5)) % 251
  return pixels
}

/** Left half red, right half blue: after a quarter turn the halves tell which way it went. */
const redLeftBlueRight = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#0000ff" } }).composite([
    {
      input: { create: { width: width / 2, height, channels: 3, background: "#ff0000" } },
      left: 0,
      top: 0
    }
  ])

const jpegWithOrientation6AndPrivateExif = () =>
  Effect.promise(async () =>
    sharp(await redLeftBlueRight(600, 400).png().toBuffer())
      .jpeg({ quality: 90 })
      .withMetadata({ orientation: 6 })
      .withExifMerge({
        IFD0: { Copyright: "Jane Doe 2024", Artist: "Jane Doe" },
        IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1", GPSLongitudeRef: "W", GPSLongitude: "0/1 7/1 0/1" }
      })
      .toBuffer()
  )

const solid = (width: number, height: number, background = "#33aa77") =>
  sharp({ create: { width, height, channels: 3, background }, limitInputPixels: false })

const expectRejected = (
  bytes: Uint8Array,
  reason: AvatarRejected["reason"],
  options?: Parameters<typeof processAvatar>[1]
) =>
  Effect.gen(function* () {
    // An unexpected success is summarised: printing the image bytes in a failure report is of no use.
    const outcome = yield* processAvatar(bytes, options).pipe(
      Effect.match({ onSuccess: () => "accepted" as const, onFailure: (error) => error })
    )
    expect(outcome).toBeInstanceOf(AvatarRejected)
    expect(outcome).toMatchObject({ _tag: "ImageRejected", reason })
  })

const metadataOf = (bytes: Uint8Array) => Effect.promise(() => sharp(bytes).metadata())

const pngChunk = (type: string, data: Buffer) => {
  const typeAndData = Buffer.concat([Buffer.from(type, "latin1"), data])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typeAndData))
  return Buffer.concat([length, typeAndData, crc])
}

/**
 * A PNG made of a header only, claiming `width` x `height` (8-bit RGB unless told): what a bomb looks like before
 * it is inflated.
 */
const pngClaiming = (
  width: number,
  height: number,
  { bitDepth = 8, colourType = 2, interlaced = false } = {}
): Buffer => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([bitDepth, colourType, 0, 0, interlaced ? 1 : 0], 8) // standard compression and filtering
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk("IEND", Buffer.alloc(0))
  ])
}

describe("detectImageType", () => {
  it.effect("tells JPEG, PNG and WebP apart by their first bytes", () =>
    Effect.gen(function* () {
      const image = solid(8, 8)
      expect(detectImageType(yield* Effect.promise(() => image.clone().jpeg().toBuffer()))).toBe("jpeg")
      expect(detectImageType(yield* Effect.promise(() => image.clone().png().toBuffer()))).toBe("png")
      expect(detectImageType(yield* Effect.promise(() => image.clone().webp().toBuffer()))).toBe("webp")
    })
  )

  it.effect("knows nothing of GIF, text, other RIFF files or too few bytes", () =>
    Effect.gen(function* () {
      expect(detectImageType(yield* Effect.promise(() => solid(8, 8).gif().toBuffer()))).toBeUndefined()
      expect(detectImageType(new TextEncoder().encode("just some text, named photo.jpg"))).toBeUndefined()
      expect(detectImageType(Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1"))).toBeUndefined()
      expect(detectImageType(new Uint8Array([0xff, 0xd8]))).toBeUndefined()
      expect(detectImageType(new Uint8Array())).toBeUndefined()
    })
  )
})

describe("processAvatar", () => {
  it.effect("turns an EXIF orientation 6 JPEG upright and drops its EXIF, GPS and copyright", () =>
    Effect.gen(function* () {
      const jpeg = yield* jpegWithOrientation6AndPrivateExif()
      const input = yield* metadataOf(jpeg)
      expect(input.orientation).toBe(6)
      expect([input.width, input.height]).toEqual([600, 400])
      expect(input.exif?.toString("latin1")).toContain("Jane Doe 2024")

      const avatar = yield* processAvatar(jpeg)

      expect(avatar.contentType).toBe("image/webp")
      expect(avatar.extension).toBe("webp")
      expect(detectImageType(avatar.bytes)).toBe("webp")
      const output = yield* metadataOf(avatar.bytes)
      expect(output.format).toBe("webp")
      expect([output.width, output.height]).toEqual([400, 600])
      expect(output.orientation).toBeUndefined()
      expect(output.exif).toBeUndefined()
      expect(output.xmp).toBeUndefined()
      expect(output.icc).toBeUndefined()
      expect(Buffer.from(avatar.bytes).toString("latin1")).not.toContain("Jane Doe")

      // A quarter turn clockwise brings the red left half to the top.
      const { data, info } = yield* Effect.promise(() =>
        sharp(avatar.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
      )
      const pixelAt = (x: number, y: number) =>
        Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3))
      const [topRed, , topBlue] = pixelAt(200, 100)
      const [bottomRed, , bottomBlue] = pixelAt(200, 500)
      expect(topRed).toBeGreaterThan(200)
      expect(topBlue).toBeLessThan(60)
      expect(bottomBlue).toBeGreaterThan(200)
      expect(bottomRed).toBeLessThan(60)
    })
  )

  it.effect("re-encodes a PNG as WebP at its own size, keeping transparency", () =>
    Effect.gen(function* () {
      const png = yield* Effect.promise(() =>
        sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } })
          .png()
          .toBuffer()
      )

      const avatar = yield* processAvatar(png)

      const output = yield* metadataOf(avatar.bytes)
      expect(output.format).toBe("webp")
      expect([output.width, output.height]).toEqual([64, 48])
      expect(output.hasAlpha).toBe(true)
    })
  )

  it.effect("re-encodes a WebP and drops the EXIF it carried", () =>
    Effect.gen(function* () {
      const webp = yield* Effect.promise(() =>
        solid(120, 90)
          .webp()
          .withExif({ IFD0: { Copyright: "Jane Doe 2024" } })
          .toBuffer()
      )
      expect((yield* metadataOf(webp)).exif?.toString("latin1")).toContain("Jane Doe 2024")

      const avatar = yield* processAvatar(webp)

      const output = yield* metadataOf(avatar.bytes)
      expect(output.format).toBe("webp")
      expect([output.width, output.height]).toEqual([120, 90])
      expect(output.exif).toBeUndefined()
    })
  )

  it.effect("shrinks a large image to fit maxSide, keeping its proportions", () =>
    Effect.gen(function* () {
      const png = yield* Effect.promise(() => solid(3000, 1500).png().toBuffer())

      const byDefault = yield* metadataOf((yield* processAvatar(png)).bytes)
      const smaller = yield* metadataOf((yield* processAvatar(png, { maxSide: 256 })).bytes)

      expect([byDefault.width, byDefault.height]).toEqual([1024, 512])
      expect([smaller.width, smaller.height]).toEqual([256, 128])
    })
  )

  it.effect("refuses a text file named .jpg and a GIF as unsupported_type", () =>
    Effect.gen(function* () {
      yield* expectRejected(new TextEncoder().encode("I am photo.jpg, honestly"), "unsupported_type")
      yield* expectRejected(yield* Effect.promise(() => solid(16, 16).gif().toBuffer()), "unsupported_type")
    })
  )

  it.effect("refuses anything over 5 MiB as too_large, before looking at the content", () =>
    Effect.gen(function* () {
      const oversized = new Uint8Array(5 * MiB + 1)
      oversized.set([0xff, 0xd8, 0xff])

      yield* expectRejected(oversized, "too_large")
    })
  )

  it.effect("accepts a file of exactly maxBytes and refuses one byte less of allowance", () =>
    Effect.gen(function* () {
      const png = yield* Effect.promise(() => solid(32, 32).png().toBuffer())

      const avatar = yield* processAvatar(png, { maxBytes: png.length })
      expect(detectImageType(avatar.bytes)).toBe("webp")
      yield* expectRejected(png, "too_large", { maxBytes: png.length - 1 })
    })
  )

  it.effect("refuses a decompression bomb (small on disk, 64 megapixels) as too_many_pixels", () =>
    Effect.gen(function* () {
      const bomb = yield* Effect.promise(() => solid(8000, 8000, "#ffffff").png({ compressionLevel: 9 }).toBuffer())
      expect(bomb.length).toBeLessThan(5 * MiB)

      yield* expectRejected(bomb, "too_many_pixels")
    })
  )

  it.effect("refuses a PNG whose header claims 7000x7000 without decoding it", () =>
    Effect.gen(function* () {
      const claim = pngClaiming(7000, 7000)
      expect(claim.length).toBeLessThan(100)

      yield* expectRejected(claim, "too_many_pixels")
    })
  )

  it.effect("refuses a side over 8192 px as side_too_long, from the header", () =>
    Effect.gen(function* () {
      yield* expectRejected(pngClaiming(20_000, 20_000), "side_too_long")
      yield* expectRejected(pngClaiming(8193, 1000), "side_too_long")
      yield* expectRejected(pngClaiming(1000, 8193), "side_too_long")
      // A sliver under the pixel limit: 39 megapixels, 13 s of CPU to shrink before this rule.
      yield* expectRejected(pngClaiming(1, 39_000_000), "side_too_long")
      // 8192 itself passes the header checks and reaches the decoder, which finds no pixel data.
      yield* expectRejected(pngClaiming(8192, 1000), "corrupt")
    })
  )

  it.effect("refuses one side over 20 times the other as aspect_ratio, from the header", () =>
    Effect.gen(function* () {
      yield* expectRejected(pngClaiming(8000, 399), "aspect_ratio")
      yield* expectRejected(pngClaiming(300, 6001), "aspect_ratio")
      yield* expectRejected(pngClaiming(8000, 400), "corrupt")
      yield* expectRejected(pngClaiming(300, 6000), "corrupt")
    })
  )

  it.effect("refuses a decoding estimated over budget as too_costly: 16-bit colour, interlacing", () =>
    Effect.gen(function* () {
      // 25 megapixels of 8-bit RGBA is the budget; in 16 bits, or interlaced, half as many.
      yield* expectRejected(pngClaiming(5000, 5000, { colourType: 6 }), "corrupt")
      yield* expectRejected(pngClaiming(5000, 5001, { colourType: 6 }), "too_costly")
      yield* expectRejected(pngClaiming(5000, 5000, { colourType: 6, bitDepth: 16 }), "too_costly")
      yield* expectRejected(pngClaiming(5000, 5000, { colourType: 6, interlaced: true }), "too_costly")
      yield* expectRejected(pngClaiming(2500, 5000, { colourType: 6, interlaced: true }), "corrupt")
      yield* expectRejected(pngClaiming(2500, 5000, { colourType: 6, bitDepth: 16 }), "corrupt")
    })
  )

  it.effect("stops a decoding past decodeTimeoutSeconds as too_costly", () =>
    Effect.gen(function* () {
      // 40 megapixels of 16-bit RGBA: 300 KiB, about 1.4 s of CPU; accepted whole without the timeout.
      const heavy = pngOfZeros(8000, 5000, { bitDepth: 16, colourType: 6 })
      yield* expectRejected(heavy, "too_costly", { maxDecodeWork: Number.MAX_SAFE_INTEGER, decodeTimeoutSeconds: 1 })
    })
  )

  it.effect("honours a lower maxPixels", () =>
    Effect.gen(function* () {
      const png = yield* Effect.promise(() => solid(100, 100).png().toBuffer())

      yield* expectRejected(png, "too_many_pixels", { maxPixels: 9_999 })
      expect(detectImageType((yield* processAvatar(png, { maxPixels: 10_000 })).bytes)).toBe("webp")
    })
  )

  it.effect("refuses a truncated JPEG as corrupt", () =>
    Effect.gen(function* () {
      const jpeg = yield* Effect.promise(() =>
        sharp(noisePixels(600, 400), { raw: { width: 600, height: 400, channels: 3 } })
          .jpeg({ quality: 90 })
          .toBuffer()
      )
      const truncated = jpeg.subarray(0, Math.floor(jpeg.length * 0.6))
      // The header survives the cut, so only the decoder can notice the missing pixel data.
      expect((yield* metadataOf(truncated)).width).toBe(600)

      yield* expectRejected(truncated, "corrupt")
    })
  )

  it.effect("refuses JPEG magic bytes followed by garbage as corrupt", () =>
    Effect.gen(function* () {
      const garbage = new Uint8Array(2048).map((_, i) => (i * 31) % 256)
      garbage.set([0xff, 0xd8, 0xff, 0xe0])

      yield* expectRejected(garbage, "corrupt")
    })
  )
})
