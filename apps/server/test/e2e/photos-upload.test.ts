import { readFileSync } from "node:fs"
import sharp from "sharp"
import { describe, expect, it } from "vitest"
import { pngOfZeros } from "../../../../test-support/png.js"
import { expectError, ISO_UTC, UUID } from "../support/fixtures.js"
import { bothBackends, client, relaxedLimits, type SignedIn, signIn, useServer } from "../support/harness.js"
import { largePng, webpChunks } from "../support/images.js"
import { rawRequest } from "../support/raw-http.js"

const fixture = (name: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)))
/** A JPEG carrying EXIF with an author, a copyright notice and GPS coordinates. */
const jpegWithExif = fixture("exif-gps.jpg")
const png = fixture("plain.png")

const imageForm = (bytes: Uint8Array, field = "image", type = "image/jpeg") => {
  const form = new FormData()
  form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), "photo.jpg")
  return form
}

/** The URL with one character of its signature changed. */
const alteredSignature = (url: string) => {
  const parsed = new URL(url)
  const sig = parsed.searchParams.get("sig")!
  parsed.searchParams.set("sig", `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`)
  return parsed.toString()
}

describe.each(bothBackends)("photo uploads on %s", (backend) => {
  const server = useServer(backend, { settings: relaxedLimits })
  const api = () => client(server())
  const upload = (me: SignedIn, bytes: Uint8Array, field = "image") =>
    api().post("/images", { token: me.token, rawBody: imageForm(bytes, field), headers: { "accept-language": "en" } })
  const storedOf = async (id: string) => (await server().storedImages()).find((image) => image.id === id)

  it("answers 201 with the stored image, re-encoded without EXIF or GPS, and a whole-image thumbnail", async () => {
    const me = await signIn(server(), api())
    expect(Buffer.from(jpegWithExif).includes("Secret Owner")).toBe(true)
    const answer = await upload(me, jpegWithExif)
    expect(answer.status).toBe(201)
    const image = answer.body.data
    expect(image.id).toMatch(UUID)
    expect(image.created_at).toMatch(ISO_UTC)
    expect(image.url.startsWith(`${server().baseUrl}/files/images/${image.id}/full?`)).toBe(true)
    expect(image.thumbnail_url.startsWith(`${server().baseUrl}/files/images/${image.id}/thumb?`)).toBe(true)

    const stored = await storedOf(image.id)
    expect(stored).toMatchObject({ ownerId: me.userId, holderKind: null, width: image.width, height: image.height })
    for (const bytes of [stored!.bytes!, stored!.thumbnailBytes!]) {
      expect(Buffer.from(bytes.subarray(8, 12)).toString("latin1")).toBe("WEBP")
      const chunks = webpChunks(bytes)
      expect(chunks).not.toContain("EXIF")
      expect(chunks).not.toContain("XMP ")
      expect(chunks).not.toContain("ICCP")
      expect(Buffer.from(bytes).includes("Secret Owner")).toBe(false)
      const metadata = await sharp(bytes).metadata()
      expect(metadata.exif).toBeUndefined()
      expect(metadata.xmp).toBeUndefined()
      expect(metadata.iptc).toBeUndefined()
    }
    const served = await fetch(image.url)
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(stored!.bytes!))).toBe(true)
  })

  it("shrinks to 2,048 px on the longest side and makes a thumbnail of the whole image within 400 px", async () => {
    const me = await signIn(server(), api())
    const answer = await upload(me, largePng(3000, 1500))
    expect(answer.status).toBe(201)
    expect(answer.body.data).toMatchObject({ width: 2048, height: 1024 })
    const stored = await storedOf(answer.body.data.id)
    expect(await sharp(stored!.bytes!).metadata()).toMatchObject({ width: 2048, height: 1024, format: "webp" })
    // Not cropped: the thumbnail keeps the 2:1 shape.
    expect(await sharp(stored!.thumbnailBytes!).metadata()).toMatchObject({ width: 400, height: 200 })
    const small = await upload(me, png)
    const { width, height } = await sharp(png).metadata()
    expect(small.body.data).toMatchObject({ width, height })
  })

  it("applies the EXIF orientation before the metadata goes", async () => {
    const me = await signIn(server(), api())
    // 40 x 20 pixels, stored with orientation 6 (rotate 90°): shown 20 x 40.
    const rotated = await sharp({ create: { width: 40, height: 20, channels: 3, background: "#c33" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer()
    const answer = await upload(me, rotated)
    expect(answer.status).toBe(201)
    expect(answer.body.data).toMatchObject({ width: 20, height: 40 })
  })

  it("serves the URLs without a bearer token, as WebP with nosniff, an ETag, private caching and 304", async () => {
    const me = await signIn(server(), api())
    const { url, thumbnail_url } = (await upload(me, png)).body.data
    for (const address of [url, thumbnail_url]) {
      const served = await fetch(address)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/webp")
      expect(served.headers.get("x-content-type-options")).toBe("nosniff")
      expect(served.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/)
      const maxAge = Number(/max-age=(\d+)/.exec(served.headers.get("cache-control")!)![1])
      expect(maxAge).toBeGreaterThanOrEqual(3600)
      const etag = served.headers.get("etag")!
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
      const again = await fetch(address, { headers: { "if-none-match": etag } })
      expect(again.status).toBe(304)
    }
  })

  it("answers 403 in the envelope to a URL altered by one byte, moved to another image or variant, or unsigned", async () => {
    const me = await signIn(server(), api())
    const first = (await upload(me, png)).body.data
    const second = (await upload(me, png)).body.data
    const forbidden = async (address: string) => {
      const answer = await fetch(address, { headers: { "accept-language": "en" } })
      expectError({ status: answer.status, body: await answer.json() }, 403, "FORBIDDEN")
    }
    await forbidden(alteredSignature(first.url))
    // The signature of the first image on the second one's path.
    await forbidden(first.url.replace(first.id, second.id))
    await forbidden(first.url.replace("/full?", "/thumb?"))
    // Another expiry under the same signature.
    const later = new URL(first.url)
    later.searchParams.set("exp", String(Number(later.searchParams.get("exp")) + 3600))
    await forbidden(later.toString())
    // A signature spelled otherwise (padding) is not the text we signed.
    await forbidden(`${first.url}=`)
    await forbidden(first.url.split("?")[0]!)
    // The genuine ones still work.
    expect((await fetch(first.url)).status).toBe(200)
    expect((await fetch(second.url)).status).toBe(200)
  })

  it("keeps a URL working for at least an hour, then answers 403 once it has expired", async () => {
    const me = await signIn(server(), api())
    const { url } = (await upload(me, png)).body.data
    const expires = Number(new URL(url).searchParams.get("exp")) * 1000
    expect(expires - Date.now()).toBeGreaterThanOrEqual(60 * 60 * 1000 - 60_000)
    server().clock.advance("59 minutes")
    expect((await fetch(url)).status).toBe(200)
    server().clock.advance("2 hours")
    const answer = await fetch(url, { headers: { "accept-language": "en" } })
    expectError({ status: answer.status, body: await answer.json() }, 403, "FORBIDDEN")
  })

  describe("refusals, each changing nothing", () => {
    const refused = async (me: SignedIn, answer: { status: number; body: unknown }, status: number, code: string) => {
      const before = (await server().storedImages()).filter((image) => image.ownerId === me.userId).length
      expectError(answer, status, code, code === "VALIDATION_ERROR" ? ["image"] : undefined)
      const after = (await server().storedImages()).filter((image) => image.ownerId === me.userId).length
      expect(after).toBe(before)
    }

    it("415 for what is not a JPEG, PNG or WebP by its bytes (a GIF, a script, HTML named .jpg), or not a form", async () => {
      const me = await signIn(server(), api())
      await refused(
        me,
        await upload(me, new TextEncoder().encode("<script>alert(1)</script>")),
        415,
        "UNSUPPORTED_MEDIA_TYPE"
      )
      await refused(
        me,
        await upload(me, new TextEncoder().encode("GIF89a\u0001\u0000\u0001\u0000")),
        415,
        "UNSUPPORTED_MEDIA_TYPE"
      )
      const json = await api().raw.post("/images", { token: me.token, body: { image: "x" } })
      await refused(me, json, 415, "UNSUPPORTED_MEDIA_TYPE")
    })

    it("413 for a file over 10 MiB", async () => {
      const me = await signIn(server(), api())
      const big = new Uint8Array(10 * 1024 * 1024 + 1)
      big.set(png.subarray(0, 64))
      await refused(me, await upload(me, big), 413, "PAYLOAD_TOO_LARGE")
    })

    it("400 on image for no image part, undecodable or truncated bytes", async () => {
      const me = await signIn(server(), api())
      await refused(me, await upload(me, png, "photo"), 400, "VALIDATION_ERROR")
      const corrupt = new Uint8Array(png.length)
      corrupt.set(png.subarray(0, 64))
      await refused(me, await upload(me, corrupt), 400, "VALIDATION_ERROR")
      await refused(
        me,
        await upload(me, jpegWithExif.subarray(0, Math.floor(jpegWithExif.length / 2))),
        400,
        "VALIDATION_ERROR"
      )
    })

    it("400 on image, at once, for a form with no body: a length of 0, an empty chunked body, or none announced", async () => {
      const me = await signIn(server(), api())
      const headers = {
        authorization: `Bearer ${me.token}`,
        "content-type": "multipart/form-data; boundary=form",
        "accept-language": "en"
      }
      const post = (options: Parameters<typeof rawRequest>[3]) =>
        rawRequest(server().baseUrl, "POST", "/api/v1/images", options)
      const empties = [
        post({ headers, body: "" }),
        post({ headers: { ...headers, "transfer-encoding": "chunked" } }),
        post({ headers })
      ]
      for (const answer of await Promise.all(empties)) await refused(me, answer, 400, "VALIDATION_ERROR")
    }, 15_000)

    it("400 on image, fast, for a 1 x 39,000,000 PNG, a side over 8,192 px, over 40,000,000 pixels, past 1:20, a bomb", async () => {
      const me = await signIn(server(), api())
      const started = performance.now()
      const cases: Array<[Uint8Array, string]> = [
        [pngOfZeros(1, 39_000_000), "Neither side of the image may be over 8192 pixels"],
        [pngOfZeros(8193, 1000), "Neither side of the image may be over 8192 pixels"],
        [pngOfZeros(8000, 5001), "The image may have at most 40,000,000 pixels"],
        [pngOfZeros(8000, 399), "One side of the image may be at most 20 times the other"],
        // 40 megapixels of 16-bit RGBA, interlaced, in a few KiB: a decompression bomb.
        [
          pngOfZeros(8000, 5000, { bitDepth: 16, colourType: 6, interlaced: true }),
          "The image is too heavy to process; save it smaller or as an ordinary JPEG"
        ]
      ]
      for (const [bytes, message] of cases) {
        const answer = await upload(me, bytes)
        await refused(me, answer, 400, "VALIDATION_ERROR")
        expect(expectError(answer, 400, "VALIDATION_ERROR").details.image).toEqual([message])
      }
      expect(performance.now() - started).toBeLessThan(10_000)
    })

    it("400 for an image whose header lies about its size", async () => {
      const me = await signIn(server(), api())
      // A 20 x 20 PNG whose header claims 4,000 x 4,000: the pixel data runs out.
      const small = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#08f" } })
        .png()
        .toBuffer()
      const lying = Buffer.from(small)
      lying.writeUInt32BE(4000, 16)
      lying.writeUInt32BE(4000, 20)
      const { crc32 } = await import("node:zlib")
      lying.writeUInt32BE(crc32(lying.subarray(12, 29)), 29)
      await refused(me, await upload(me, lying), 400, "VALIDATION_ERROR")
    })
  })

  it("refuses the 51st unattached image with 422 IMAGE_LIMIT_REACHED; the sweep deletes images unattached for 24 hours, files too", async () => {
    const me = await signIn(server(), api())
    const other = await signIn(server(), api())
    for (let i = 0; i < 50; i++) expect((await upload(me, png)).status).toBe(201)
    const refusedAnswer = await upload(me, png)
    expectError(refusedAnswer, 422, "IMAGE_LIMIT_REACHED")
    expect((await server().storedImages()).filter((image) => image.ownerId === me.userId)).toHaveLength(50)
    // The cap is each user's own.
    expect((await upload(other, png)).status).toBe(201)

    server().clock.advance("23 hours")
    await server().sweepImages()
    expect((await server().storedImages()).filter((image) => image.ownerId === me.userId)).toHaveLength(50)
    server().clock.advance("1 hour")
    // Access tokens do not live a day: both sign in again.
    const meAgain = await signIn(server(), api(), me.phone)
    const otherAgain = await signIn(server(), api(), other.phone)
    const fresh = (await upload(otherAgain, png)).body.data
    const report = await server().sweepImages()
    expect(report.unattached).toBeGreaterThanOrEqual(51)
    const left = await server().storedImages()
    expect(left.filter((image) => image.ownerId === me.userId)).toHaveLength(0)
    expect(left.map((image) => image.id)).toEqual([fresh.id])
    // Room again, and the fresh image of the other user is still served.
    expect((await upload(meAgain, png)).status).toBe(201)
    expect((await fetch(fresh.url)).status).toBe(200)
  }, 120_000)
})
