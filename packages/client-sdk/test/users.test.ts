import { describe, expect, it } from "vitest"
import { createTalabClient, TalabApiError } from "../src/index.js"
import { PNG, signedInClient, useTestServer } from "./support.js"

describe("account calls", () => {
  const server = useTestServer()

  it("uploads an avatar as multipart form data and answers its URL", async () => {
    const { talab } = await signedInClient(server())
    const { avatar_url } = await talab.uploadAvatar(new Blob([PNG], { type: "image/png" }), "me.png")
    expect(avatar_url.startsWith(server().baseUrl)).toBe(true)
    const { data: me } = await talab.GET("/users/me")
    expect(me.avatar_url).toBe(avatar_url)
    expect((await fetch(avatar_url)).status).toBe(200)
  })

  it("uploads a photo from Node bytes and from a browser Blob, and attaches it by its typed id", async () => {
    const { talab } = await signedInClient(server())
    const fromBytes = await talab.uploadImage(PNG, "back.png")
    const fromBlob = await talab.uploadImage(new File([PNG], "front.png", { type: "image/png" }))
    expect(fromBytes).toMatchObject({ width: 1, height: 1 })
    expect((await fetch(fromBlob.thumbnail_url)).status).toBe(200)
    const photoIds: Array<string> = [fromBytes.id, fromBlob.id]
    const { data } = await talab.POST("/requests", {
      body: { category: "phone", budget_min: 100, budget_max: 200, location_district: "Olaya", photo_ids: photoIds }
    })
    expect(data?.photos.map((photo) => photo.id)).toEqual(photoIds)
    const error = await talab.uploadImage(new Blob(["hello"])).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 })
  })

  it("415: an avatar that is not an image is UNSUPPORTED_MEDIA_TYPE", async () => {
    const { talab } = await signedInClient(server())
    const error = await talab
      .uploadAvatar(new Blob(["hello"], { type: "text/plain" }), "me.txt")
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TalabApiError)
    expect(error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 })
  })

  it("sends the client's headers with every call, and a call's own headers too", async () => {
    const seen: Array<Headers> = []
    const talab = createTalabClient({
      baseUrl: server().baseUrl,
      headers: { "x-app-version": "2.3.0" },
      fetch: (request) => {
        seen.push(request.headers)
        return globalThis.fetch(request)
      }
    })
    await talab.POST("/auth/request-otp", {
      body: { phone_number: "+966551230000" },
      headers: { "x-request-id": "abc" }
    })
    expect(seen[0]!.get("x-app-version")).toBe("2.3.0")
    expect(seen[0]!.get("x-request-id")).toBe("abc")
    expect(seen[0]!.get("authorization")).toBeNull()
  })

  it("updates the profile with a typed body", async () => {
    const { talab } = await signedInClient(server())
    const { data } = await talab.PUT("/users/me", { body: { name: "Huda", language: "en" } })
    expect(data).toMatchObject({ name: "Huda", language: "en" })
  })
})
