import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { startS3Server } from "../../../../packages/http-server/test/support/s3.js"
import {
  freePort,
  killStartedServers,
  lastCodeInOutbox,
  migratedDataDir,
  startServer as startChildServer,
  waitUntilLive
} from "../support/child-server.js"
import { client, relaxedLimits, signIn } from "../support/harness.js"
import { useTwoInstances } from "../support/two-instances.js"

/*
 * A photo's files live in whichever FILE_STORE the deployment has, and go with what holds them: uploaded, served by
 * their signed URLs, then removed from the store itself (read here, not through the API) when the account that
 * uploaded them is deleted. `local` on the built server with a DATA_DIR (the testkit keeps files in memory), `s3`
 * against an S3-compatible fake.
 */

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))
const imageForm = () => {
  const form = new FormData()
  form.append("image", new Blob([png], { type: "image/png" }), "photo.png")
  return form
}
const requestBody = (photoIds: Array<string>) => ({
  category: "phone" as const,
  budget_min: 100,
  budget_max: 200,
  location_district: "Olaya",
  photo_ids: photoIds
})

/** Every file under a directory, by its path below it, skipping the store's hidden content-type records. */
const filesUnder = (directory: string): Array<string> =>
  readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1))

describe("photos with FILE_STORE=local (the built server, a DATA_DIR)", () => {
  afterEach(killStartedServers)

  it("writes a photo's two files under DATA_DIR/uploads, serves them, and removes them with the account", async () => {
    const dataDir = migratedDataDir()
    const uploads = join(dataDir, "uploads")
    const outbox = join(dataDir, "sms.jsonl")
    const port = await freePort()
    const server = startChildServer({
      PORT: String(port),
      DATA_DIR: dataDir,
      FILE_STORE: "local",
      SMS_OUTBOX_FILE: outbox,
      ALLOW_CONSOLE_PROVIDERS: "true"
    })
    await waitUntilLive(port, server)
    const api = `http://127.0.0.1:${port}/api/v1`
    const phone = "+966501112299"
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const response = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(body instanceof FormData ? {} : { "content-type": "application/json" }),
          ...(token ? { authorization: `Bearer ${token}` } : {})
        },
        ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) })
      })
      return { status: response.status, body: await response.json() }
    }
    expect((await call("POST", "/auth/request-otp", { phone_number: phone })).status).toBe(200)
    const verified = await call("POST", "/auth/verify-otp", {
      phone_number: phone,
      otp_code: lastCodeInOutbox(outbox, phone)
    })
    const token: string = verified.body.data.tokens.access_token

    const uploaded = await call("POST", "/images", imageForm(), token)
    expect(uploaded.status).toBe(201)
    const photo = uploaded.body.data
    expect(filesUnder(uploads)).toHaveLength(2)
    expect((await call("POST", "/requests", requestBody([photo.id]), token)).status).toBe(201)
    for (const url of [photo.url, photo.thumbnail_url]) {
      const served = await fetch(url)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/webp")
    }

    expect((await call("POST", "/auth/request-otp", { phone_number: phone })).status).toBe(200)
    const deleted = await call("DELETE", "/users/me", { otp_code: lastCodeInOutbox(outbox, phone) }, token)
    expect(deleted.status).toBe(200)
    expect(filesUnder(uploads)).toEqual([])
    for (const url of [photo.url, photo.thumbnail_url]) expect((await fetch(url)).status).toBe(404)
  }, 180_000)
})

describe("photos with FILE_STORE=s3 (an S3-compatible fake) and two instances", () => {
  const bucket = "talab-photos-stores"
  let s3: Awaited<ReturnType<typeof startS3Server>>
  beforeAll(async () => {
    s3 = await startS3Server(bucket)
  }, 120_000)
  afterAll(async () => {
    await s3?.stop()
  }, 60_000)
  const cluster = useTwoInstances(() => ({ settings: { ...relaxedLimits, fileStore: "s3" as const, s3: s3.options } }))

  const objectKeys = async () => {
    const s3Client = new S3Client({ endpoint: s3.endpoint, region: "us-east-1", forcePathStyle: true })
    try {
      const listed = await s3Client.send(new ListObjectsV2Command({ Bucket: bucket }))
      return (listed.Contents ?? []).map((object) => object.Key!)
    } finally {
      s3Client.destroy()
    }
  }

  it("stores a photo's two objects, serves them from either instance, and deletes them with the account", async () => {
    const { a, b } = cluster
    const me = await signIn(a, client(a))
    const before = await objectKeys()
    const uploaded = await client(a).post("/images", { token: me.token, rawBody: imageForm() })
    expect(uploaded.status).toBe(201)
    const photo = uploaded.body.data
    const added = (await objectKeys()).filter((key) => !before.includes(key))
    expect(added).toHaveLength(2)
    expect((await client(b).post("/requests", { token: me.token, body: requestBody([photo.id]) })).status).toBe(201)
    for (const url of [photo.url, photo.thumbnail_url]) {
      const onB = url.replace(a.baseUrl, b.baseUrl)
      const served = await fetch(onB)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/webp")
    }

    expect((await client(a).post("/auth/request-otp", { body: { phone_number: me.phone } })).status).toBe(200)
    const deleted = await client(a).delete("/users/me", {
      token: me.token,
      body: { otp_code: a.sms.lastCode(me.phone)! }
    })
    expect(deleted.status).toBe(200)
    expect((await objectKeys()).filter((key) => added.includes(key))).toEqual([])
    for (const url of [photo.url, photo.thumbnail_url]) {
      expect((await fetch(url)).status).toBe(404)
      expect((await fetch(url.replace(a.baseUrl, b.baseUrl))).status).toBe(404)
    }
  }, 120_000)
})
