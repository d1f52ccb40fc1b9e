import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { ARABIC, expectError, ISO_UTC, UUID } from "../support/fixtures.js"
import { backends, client, relaxedLimits, signIn, useServer } from "../support/harness.js"
import { webpChunks } from "../support/images.js"

const en = { "accept-language": "en" }
const json = { "content-type": "application/json" }
const MiB = 1024 * 1024

const fixture = (name: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)))
/** A JPEG carrying EXIF with an author, a copyright notice and GPS coordinates. */
const jpegWithExif = fixture("exif-gps.jpg")
const png = fixture("plain.png")

const avatarForm = (bytes: Uint8Array<ArrayBuffer>, fileName: string, contentType = "image/jpeg", field = "avatar") => {
  const form = new FormData()
  form.append(field, new Blob([bytes], { type: contentType }), fileName)
  return form
}

describe.each(backends)("users on %s", (backend) => {
  const server = useServer(backend, { settings: relaxedLimits })
  const api = () => client(server())

  describe("GET /users/me", () => {
    it("shows the caller with seller_profile null before any application", async () => {
      const me = await signIn(server(), api())
      const response = await api().get("/users/me", { token: me.token })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        success: true,
        data: {
          id: me.userId,
          phone_number: me.phone,
          name: null,
          avatar_url: null,
          language: "ar",
          is_admin: false,
          created_at: expect.stringMatching(ISO_UTC),
          seller_profile: null
        }
      })
    })

    it("shows the seller profile once the user has applied, and verify-otp says has_seller_profile", async () => {
      const me = await signIn(server(), api())
      const applied = await api().post("/seller-profiles", {
        token: me.token,
        body: { business_name: "Olaya Phones", location_district: "Olaya" }
      })
      expect(applied.status).toBe(201)
      const profile = (await api().get("/users/me", { token: me.token })).body.data.seller_profile
      expect(profile).toEqual({
        id: applied.body.data.id,
        status: "pending",
        business_name: "Olaya Phones",
        location_district: "Olaya",
        rating_avg: 0,
        rating_count: 0,
        rejection_reason: null
      })
      expect((await signIn(server(), api(), me.phone)).user.has_seller_profile).toBe(true)
    })

    it("answers 401 without a valid token", async () => {
      expectError(await api().get("/users/me"), 401, "UNAUTHORIZED")
      expectError(await api().get("/users/me", { token: "nope" }), 401, "UNAUTHORIZED")
    })
  })

  describe("PUT /users/me", () => {
    it("sets the name (trimmed) and the language, and GET shows them", async () => {
      const me = await signIn(server(), api())
      const response = await api().put("/users/me", { token: me.token, body: { name: "  Sara Ali  ", language: "en" } })
      expect(response.status).toBe(200)
      expect(response.body.data).toMatchObject({
        id: me.userId,
        name: "Sara Ali",
        language: "en",
        seller_profile: null
      })
      expect((await api().get("/users/me", { token: me.token })).body.data).toMatchObject({
        name: "Sara Ali",
        language: "en"
      })
    })

    it("changes only the fields given", async () => {
      const me = await signIn(server(), api())
      await api().put("/users/me", { token: me.token, body: { name: "Omar" } })
      await api().put("/users/me", { token: me.token, body: { language: "en" } })
      expect((await api().get("/users/me", { token: me.token })).body.data).toMatchObject({
        name: "Omar",
        language: "en"
      })
    })

    it("accepts no body at all and changes nothing", async () => {
      const me = await signIn(server(), api())
      await api().put("/users/me", { token: me.token, body: { name: "Huda" } })
      const response = await api().put("/users/me", { token: me.token })
      expect(response.status).toBe(200)
      expect(response.body.data).toMatchObject({ name: "Huda", language: "ar" })
    })

    it("ignores unknown fields and never writes is_admin, phone_number or id", async () => {
      const me = await signIn(server(), api())
      const response = await api().raw.put("/users/me", {
        token: me.token,
        body: {
          name: "Mona",
          is_admin: true,
          phone_number: "+966509999999",
          id: crypto.randomUUID(),
          avatar_url: "http://x/y.png"
        }
      })
      expect(response.status).toBe(200)
      const after = (await api().get("/users/me", { token: me.token })).body.data
      expect(after).toMatchObject({
        id: me.userId,
        name: "Mona",
        is_admin: false,
        phone_number: me.phone,
        avatar_url: null
      })
    })

    it.each([
      ["a name of 101 characters", { name: "x".repeat(101) }, ["name"], "Must be at most 100 characters"],
      ["a name of only spaces", { name: "   " }, ["name"], "Must be at least 1 character"],
      ["a name that is not a string", { name: 42 }, ["name"], "Must be a string"],
      ["a language outside ar and en", { language: "fr" }, ["language"], "Must be one of: ar, en"],
      ["two bad fields", { name: "", language: "de" }, ["name", "language"], undefined]
    ])("refuses %s with 400 naming the field, and changes nothing", async (_, body, fields, message) => {
      const me = await signIn(server(), api())
      await api().put("/users/me", { token: me.token, body: { name: "Before" } })
      const error = expectError(
        await api().raw.put("/users/me", { token: me.token, body, headers: en }),
        400,
        "VALIDATION_ERROR",
        fields
      )
      if (message !== undefined) expect(error.details[fields[0]!]).toEqual([message])
      expect((await api().get("/users/me", { token: me.token })).body.data).toMatchObject({
        name: "Before",
        language: "ar"
      })
    })

    it("accepts a name of exactly 100 characters", async () => {
      const me = await signIn(server(), api())
      const name = "ن".repeat(100)
      expect((await api().put("/users/me", { token: me.token, body: { name } })).body.data.name).toBe(name)
    })

    it.each([
      ["malformed JSON", '{"name": "x"'],
      ["a JSON array", '[{"name": "x"}]'],
      ["a JSON number", "7"],
      ["an empty body with Content-Type: application/json", ""],
      ["a body of null", "null"]
    ])("refuses %s with 400 on body, and changes nothing", async (_, rawBody) => {
      const me = await signIn(server(), api())
      expectError(
        await api().raw.put("/users/me", { token: me.token, rawBody, headers: json }),
        400,
        "VALIDATION_ERROR",
        ["body"]
      )
      expect((await api().get("/users/me", { token: me.token })).body.data.name).toBeNull()
    })

    it("localizes details in Arabic by default", async () => {
      const me = await signIn(server(), api())
      const error = expectError(
        await api().put("/users/me", { token: me.token, body: { name: "x".repeat(101) } }),
        400,
        "VALIDATION_ERROR"
      )
      expect(error.message).toMatch(ARABIC)
      expect(error.details.name![0]).toMatch(ARABIC)
    })

    it("checks the token before the body (401 outranks 400)", async () => {
      expectError(await api().raw.put("/users/me", { rawBody: "{", headers: json }), 401, "UNAUTHORIZED")
    })
  })

  describe("POST /users/me/avatar", () => {
    it("stores a JPEG as WebP without its EXIF, serves it at avatar_url, and GET /users/me shows it", async () => {
      const me = await signIn(server(), api())
      expect(Buffer.from(jpegWithExif).includes("Secret Owner")).toBe(true)
      const response = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(jpegWithExif, "me.jpg")
      })
      expect(response.status).toBe(200)
      const url: string = response.body.data.avatar_url
      expect(url.startsWith(`${server().baseUrl}/`)).toBe(true)
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBe(url)

      const image = await fetch(url)
      expect(image.status).toBe(200)
      expect(image.headers.get("content-type")).toBe("image/webp")
      const bytes = new Uint8Array(await image.arrayBuffer())
      expect(Buffer.from(bytes.subarray(0, 4)).toString("latin1")).toBe("RIFF")
      expect(Buffer.from(bytes.subarray(8, 12)).toString("latin1")).toBe("WEBP")
      const chunks = webpChunks(bytes)
      expect(chunks.some((chunk) => chunk.startsWith("VP8"))).toBe(true)
      expect(chunks).not.toContain("EXIF")
      expect(chunks).not.toContain("XMP ")
      expect(Buffer.from(bytes).includes("Secret Owner")).toBe(false)
    })

    it("goes by the content, not the name: PNG bytes named .jpg are fine", async () => {
      const me = await signIn(server(), api())
      const response = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(png, "photo.jpg", "image/jpeg")
      })
      expect(response.status).toBe(200)
      expect((await fetch(response.body.data.avatar_url)).headers.get("content-type")).toBe("image/webp")
    })

    it("refuses text named .jpg with 415 and keeps the avatar it had", async () => {
      const me = await signIn(server(), api())
      const first = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(png, "a.png", "image/png")
      })
      const text = new TextEncoder().encode("this is not an image at all, whatever its name says")
      const response = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(text, "evil.jpg"),
        headers: en
      })
      const error = expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE")
      expect(error.message).toBe("The content type is not supported")
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBe(first.body.data.avatar_url)
    })

    it("refuses a file over 5 MiB with 413 and changes nothing", async () => {
      const me = await signIn(server(), api())
      const big = new Uint8Array(5 * MiB + 1)
      big.set(png)
      expectError(
        await api().post("/users/me/avatar", { token: me.token, rawBody: avatarForm(big, "big.png", "image/png") }),
        413,
        "PAYLOAD_TOO_LARGE"
      )
      const huge = new Uint8Array(8 * MiB)
      huge.set(png)
      expectError(
        await api().post("/users/me/avatar", { token: me.token, rawBody: avatarForm(huge, "huge.png", "image/png") }),
        413,
        "PAYLOAD_TOO_LARGE"
      )
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBeNull()
    })

    it("accepts a file of exactly 5 MiB", async () => {
      const me = await signIn(server(), api())
      // A whole PNG padded with zeros after its end: still that PNG, at the limit to the byte.
      const exact = new Uint8Array(5 * MiB)
      exact.set(png)
      const response = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(exact, "exact.png", "image/png")
      })
      expect(response.status).toBe(200)
    })

    it("refuses a form without an avatar part with 400 on avatar, even when other files come first", async () => {
      const me = await signIn(server(), api())
      const form = avatarForm(png, "a.png", "image/png", "picture")
      form.append("note", "hello")
      expectError(await api().post("/users/me/avatar", { token: me.token, rawBody: form }), 400, "VALIDATION_ERROR", [
        "avatar"
      ])
      const both = avatarForm(png, "first.png", "image/png", "picture")
      both.append("avatar", new Blob([png], { type: "image/png" }), "second.png")
      expect((await api().post("/users/me/avatar", { token: me.token, rawBody: both })).status).toBe(200)
    })

    it("refuses a form over 6 MiB in all with 413, even when each part is small", async () => {
      const me = await signIn(server(), api())
      const form = avatarForm(png, "a.png", "image/png")
      for (let i = 0; i < 3; i++) form.append(`extra${i}`, new Blob([new Uint8Array(3 * MiB)]), `extra${i}.bin`)
      expectError(await api().post("/users/me/avatar", { token: me.token, rawBody: form }), 413, "PAYLOAD_TOO_LARGE")
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBeNull()
    })

    it("takes the avatar part when other parts follow it", async () => {
      const me = await signIn(server(), api())
      const form = avatarForm(png, "a.png", "image/png")
      form.append("note", "hello")
      form.append("extra", new Blob([new Uint8Array(256 * 1024)]), "padding.bin")
      expect((await api().post("/users/me/avatar", { token: me.token, rawBody: form })).status).toBe(200)
      expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
    })

    it.each([
      ["no body", {}],
      ["multipart without a boundary", { rawBody: "--x\r\n", headers: { "content-type": "multipart/form-data" } }],
      [
        "a broken multipart body",
        { rawBody: "garbage", headers: { "content-type": "multipart/form-data; boundary=xyz" } }
      ]
    ])("refuses %s with 400 on avatar and changes nothing", async (_, request) => {
      const me = await signIn(server(), api())
      expectError(await api().raw.post("/users/me/avatar", { token: me.token, ...request }), 400, "VALIDATION_ERROR", [
        "avatar"
      ])
      expect((await api().get("/users/me", { token: me.token })).body.data.avatar_url).toBeNull()
    })

    it("answers 401 without a token, before reading the upload", async () => {
      expectError(await api().post("/users/me/avatar", { rawBody: avatarForm(png, "a.png") }), 401, "UNAUTHORIZED")
    })

    it("gives each upload its own URL and answers 404 for an unknown file", async () => {
      const me = await signIn(server(), api())
      const first = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(png, "a.png", "image/png")
      })
      const second = await api().post("/users/me/avatar", {
        token: me.token,
        rawBody: avatarForm(png, "a.png", "image/png")
      })
      expect(first.body.data.avatar_url).not.toBe(second.body.data.avatar_url)
      expect(first.body.data.avatar_url).toMatch(new RegExp(`/uploads/avatars/${UUID.source.slice(1, -1)}\\.webp$`))
      const missing = await fetch(`${server().baseUrl}/uploads/avatars/${crypto.randomUUID()}.webp`)
      expect(missing.status).toBe(404)
    })
  })
})
