import { readFileSync } from "node:fs"
import type { AppSettings } from "@talab/http-server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startS3Server } from "../../../../packages/http-server/test/support/s3.js"
import { client, relaxedLimits, signIn } from "../support/harness.js"
import { useTwoInstances } from "../support/two-instances.js"

const jpeg = new Uint8Array(readFileSync(new URL("../fixtures/exif-gps.jpg", import.meta.url)))

const avatarForm = () => {
  const form = new FormData()
  form.append("avatar", new Blob([jpeg], { type: "image/jpeg" }), "me.jpg")
  return form
}

/**
 * Two instances on one PostgreSQL database, as behind a load balancer: an avatar uploaded through one is
 * served by the other, for each store instances share (FILE_STORE=database, FILE_STORE=s3).
 */
const sharedStores: ReadonlyArray<{
  readonly name: string
  readonly settings: () => Promise<{ settings: Partial<AppSettings>; stop: () => Promise<void> }>
}> = [
  { name: "database", settings: async () => ({ settings: { fileStore: "database" }, stop: async () => {} }) },
  {
    name: "s3",
    settings: async () => {
      const s3 = await startS3Server("talab-avatars-cluster")
      return { settings: { fileStore: "s3", s3: s3.options }, stop: s3.stop }
    }
  }
]

describe.each(sharedStores)("FILE_STORE=$name with two instances", ({ settings }) => {
  let store: Awaited<ReturnType<(typeof sharedStores)[number]["settings"]>>
  beforeAll(async () => {
    store = await settings()
  }, 120_000)
  afterAll(async () => {
    await store?.stop()
  }, 60_000)
  const cluster = useTwoInstances(() => ({ settings: { ...relaxedLimits, ...store.settings } }))

  it("serves from one instance the avatar uploaded through the other, with an ETag that answers 304", async () => {
    const { a, b } = cluster
    const me = await signIn(a, client(a))
    const uploaded = await client(a).post("/users/me/avatar", { token: me.token, rawBody: avatarForm() })
    expect(uploaded.status).toBe(200)
    const path = new URL(uploaded.body.data.avatar_url as string).pathname

    const fromA = await fetch(`${a.baseUrl}${path}`)
    const fromB = await fetch(`${b.baseUrl}${path}`)
    expect(fromB.status).toBe(200)
    expect(fromB.headers.get("content-type")).toBe("image/webp")
    expect(fromB.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    const bytes = Buffer.from(await fromB.arrayBuffer())
    expect(bytes.equals(Buffer.from(await fromA.arrayBuffer()))).toBe(true)
    expect(bytes.subarray(8, 12).toString("latin1")).toBe("WEBP")

    const etag = fromB.headers.get("etag")
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(fromA.headers.get("etag")).toBe(etag)
    const revalidated = await fetch(`${b.baseUrl}${path}`, { headers: { "if-none-match": etag! } })
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers.get("etag")).toBe(etag)
    expect((await revalidated.arrayBuffer()).byteLength).toBe(0)
    const changed = await fetch(`${a.baseUrl}${path}`, { headers: { "if-none-match": '"something-else"' } })
    expect(changed.status).toBe(200)

    expect((await fetch(`${b.baseUrl}/uploads/avatars/00000000-0000-4000-8000-000000000000.webp`)).status).toBe(404)
  })
})
