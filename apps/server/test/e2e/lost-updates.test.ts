import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { client, relaxedLimits, type SignedIn, signIn, useServer } from "../support/harness.js"
import { largePng } from "../support/images.js"

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))
/** 36 megapixels: a few hundred milliseconds of decoding, during which other requests of the user land. */
const slowPng = largePng(6000, 6000)

const avatarForm = (bytes: Uint8Array) => {
  const form = new FormData()
  form.append("avatar", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "a.png")
  return form
}

/**
 * Writes that race on one row keep each other's columns. PostgreSQL only: PGlite is one connection, so nothing
 * really overlaps there.
 */
describe("no lost update on postgres", () => {
  // One decoding at a time, many waiting: an upload can be held in the queue behind another user's.
  const server = useServer("postgres", {
    settings: { ...relaxedLimits, avatarDecoding: { concurrency: 1, queue: 8 } }
  })
  const api = () => client(server())
  const upload = (me: SignedIn, bytes: Uint8Array) =>
    api().post("/users/me/avatar", { token: me.token, rawBody: avatarForm(bytes) })
  const profileOf = async (me: SignedIn) => (await api().get("/users/me", { token: me.token })).body.data
  const served = async (url: string) => (await fetch(url)).status

  it("a PUT /users/me answered during an avatar upload keeps its name and language", async () => {
    const [me, other] = await Promise.all([signIn(server(), api()), signIn(server(), api())])
    expect((await api().put("/users/me", { token: me.token, body: { name: "Old", language: "ar" } })).status).toBe(200)

    // The other user's decoding holds the only slot, so this upload waits, its user already read.
    const blocker = upload(other, slowPng)
    let uploaded = false
    const upload1 = upload(me, slowPng).then((answer) => {
      uploaded = true
      return answer
    })
    const put = await api().put("/users/me", { token: me.token, body: { name: "New", language: "en" } })
    expect(put.status).toBe(200)
    expect(uploaded).toBe(false)

    const answer = await upload1
    expect(answer.status).toBe(200)
    expect((await blocker).status).toBe(200)
    const profile = await profileOf(me)
    expect({ name: profile.name, language: profile.language, avatar_url: profile.avatar_url }).toEqual({
      name: "New",
      language: "en",
      avatar_url: answer.body.data.avatar_url
    })
  })

  it("of two racing uploads, each deletes the file it actually replaced: no orphan, the avatar served", async () => {
    const me = await signIn(server(), api())
    const first: string = (await upload(me, png)).body.data.avatar_url
    // Both read the user before either writes: the decodings run one after the other.
    const [a, b] = await Promise.all([upload(me, slowPng), upload(me, slowPng)])
    expect([a.status, b.status]).toEqual([200, 200])
    const urls: Array<string> = [a.body.data.avatar_url, b.body.data.avatar_url]
    const current = String((await profileOf(me)).avatar_url)
    expect(urls).toContain(current)
    expect(await served(current)).toBe(200)
    expect(await served(urls.find((url) => url !== current)!)).toBe(404)
    expect(await served(first)).toBe(404)
  })
})
