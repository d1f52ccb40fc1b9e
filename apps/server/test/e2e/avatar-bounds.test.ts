import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { pngOfZeros } from "../../../../test-support/png.js"
import { expectError } from "../support/fixtures.js"
import { backends, client, relaxedLimits, type SignedIn, signIn, useServer } from "../support/harness.js"
import { largePng } from "../support/images.js"

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))
/** 36 megapixels: a few hundred milliseconds of decoding, so parallel uploads overlap. */
const slowPng = largePng(6000, 6000)

const avatarForm = (bytes: Uint8Array, fileName = "a.png") => {
  const form = new FormData()
  form.append("avatar", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), fileName)
  return form
}

/**
 * An upload cannot exhaust the server: avatar decoding is bounded, and a replaced avatar's file is deleted only once
 * replaced.
 */
describe.each(backends)("avatar bounds on %s", (backend) => {
  // One decoding at a time and nobody waiting: a second upload during a decoding is refused.
  const server = useServer(backend, { settings: { ...relaxedLimits, avatarDecoding: { concurrency: 1, queue: 0 } } })
  const api = () => client(server())
  const upload = (me: SignedIn, bytes: Uint8Array) =>
    api().post("/users/me/avatar", {
      token: me.token,
      rawBody: avatarForm(bytes),
      headers: { "accept-language": "en" }
    })
  const avatarOf = async (me: SignedIn) => (await api().get("/users/me", { token: me.token })).body.data.avatar_url
  const served = async (url: string) => (await fetch(url)).status

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After when the decoding queue is full, and keeps the avatar", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => signIn(server(), api())))
    const oldUrls: Array<string> = []
    for (const me of users) oldUrls.push((await upload(me, png)).body.data.avatar_url)

    const answers = await Promise.all(users.map((me) => upload(me, slowPng)))
    expect(answers.every((answer) => answer.status === 200 || answer.status === 503)).toBe(true)
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1)
    expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(1)
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 200) continue
      expectError(answer, 503, "SERVICE_UNAVAILABLE")
      expect(answer.body.error.message).toBe("The service is unavailable for now; try again later")
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0)
      // A refused upload changed nothing: the user's avatar is still the old one, still served.
      expect(await avatarOf(users[index]!)).toBe(oldUrls[index])
      expect(await served(oldUrls[index]!)).toBe(200)
    }
    // Once the queue has drained, uploads go through again.
    const later = await upload(users[0]!, png)
    expect(later.status).toBe(200)
  })

  it("deletes the replaced avatar's file once the new one is stored", async () => {
    const me = await signIn(server(), api())
    const first: string = (await upload(me, png)).body.data.avatar_url
    expect(await served(first)).toBe(200)
    const second: string = (await upload(me, png)).body.data.avatar_url
    expect(second).not.toBe(first)
    expect(await avatarOf(me)).toBe(second)
    expect(await served(second)).toBe(200)
    expect(await served(first)).toBe(404)
  })

  it("keeps the current avatar's file when an upload fails", async () => {
    const me = await signIn(server(), api())
    const current: string = (await upload(me, png)).body.data.avatar_url
    const corrupt = new Uint8Array(png.length)
    corrupt.set(png.subarray(0, 64)) // a PNG header, then zeros
    expectError(await upload(me, corrupt), 400, "VALIDATION_ERROR", ["avatar"])
    expectError(await upload(me, new TextEncoder().encode("not an image")), 415, "UNSUPPORTED_MEDIA_TYPE")
    expect(await avatarOf(me)).toBe(current)
    expect(await served(current)).toBe(200)
  })

  it("refuses a 1 x 39,000,000 PNG from its header, fast, with 400 naming the avatar part", async () => {
    const me = await signIn(server(), api())
    const current: string = (await upload(me, png)).body.data.avatar_url
    // 39 megapixels (under the 40-megapixel limit) in a few hundred KiB: 13 s of CPU to shrink when it was decoded.
    const sliver = pngOfZeros(1, 39_000_000)
    expect(sliver.length).toBeLessThan(5 * 1024 * 1024)

    const started = performance.now()
    const answer = await upload(me, sliver)
    const elapsedMs = performance.now() - started

    const error = expectError(answer, 400, "VALIDATION_ERROR", ["avatar"])
    expect(error.details.avatar).toEqual(["Neither side of the image may be over 8192 pixels"])
    // Generous for a busy machine; decoding it took 25 s of wall clock on the same machine.
    expect(elapsedMs).toBeLessThan(3_000)
    expect(await avatarOf(me)).toBe(current)
  })

  it("refuses one side over 20 times the other, and accepts 1:20 at 8192 px", async () => {
    const me = await signIn(server(), api())
    const error = expectError(await upload(me, pngOfZeros(8000, 399)), 400, "VALIDATION_ERROR", ["avatar"])
    expect(error.details.avatar).toEqual(["One side of the image may be at most 20 times the other"])
    const accepted = await upload(me, pngOfZeros(8192, 410))
    expect(accepted.status).toBe(200)
    expect(await avatarOf(me)).toBe(accepted.body.data.avatar_url)
  })

  it("refuses an image whose decoding the header says is too heavy (16-bit, interlaced) with 400 naming the part", async () => {
    const me = await signIn(server(), api())
    const heavy = pngOfZeros(8000, 5000, { bitDepth: 16, colourType: 6, interlaced: true })
    const error = expectError(await upload(me, heavy), 400, "VALIDATION_ERROR", ["avatar"])
    expect(error.details.avatar).toEqual(["The image is too heavy to process; save it smaller or as an ordinary JPEG"])
  })
})
