import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import relativeAvatarUrls from "../../../../packages/http-server/src/db/migrations/0022_relative_avatar_urls.js"
import { type ChildServer, freePort, lastCodeInOutbox, startServer, waitUntilLive } from "../support/child-server.js"
import { createPostgresDatabase, runSql } from "../support/postgres.js"

/*
 * Avatars are stored as paths and shown on the PUBLIC_URL of the moment: a database moved to another host (or a
 * PUBLIC_URL changed) shows every avatar on the new one, and migration 0022 turns the absolute URLs stored before
 * into paths. The real server (a child process) on one PostgreSQL database, started twice with different PUBLIC_URLs.
 */

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))
const JWT_SECRET = "a-secret-for-the-avatar-url-test-of-32-bytes"
const OLD_BASE = "http://localhost:3201"
const NEW_BASE = "https://api.new-host.example"

describe("avatar URLs follow PUBLIC_URL", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talab-avatar-urls-"))
  const smsOutbox = join(dataDir, "sms.jsonl")
  const phone = `+96655${String(Date.now() % 10_000_000).padStart(7, "0")}`
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>
  let running: ChildServer | undefined

  const query = async <Row>(text: string, values: Array<unknown> = []) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query(text, values)).rows as Array<Row>
    } finally {
      await client.end()
    }
  }

  const start = async (publicUrl: string) => {
    const port = await freePort()
    running = startServer({
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      DATABASE_URL: database.url,
      JWT_SECRET,
      SMS_OUTBOX_FILE: smsOutbox
    })
    await waitUntilLive(port, running)
    return `http://127.0.0.1:${port}/api/v1`
  }
  const stop = async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill("SIGTERM")
      await running.exited
    }
    running = undefined
  }

  const signIn = async (api: string) => {
    const post = (path: string, body: unknown) =>
      fetch(`${api}/auth/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    expect((await post("request-otp", { phone_number: phone })).status).toBe(200)
    const verified = await post("verify-otp", { phone_number: phone, otp_code: lastCodeInOutbox(smsOutbox, phone) })
    expect(verified.status).toBe(200)
    const data = ((await verified.json()) as any).data
    return { token: data.tokens.access_token as string, user: data.user as { id: string; avatar_url: string | null } }
  }
  const me = async (api: string, token: string) => {
    const response = await fetch(`${api}/users/me`, { headers: { authorization: `Bearer ${token}` } })
    expect(response.status).toBe(200)
    return ((await response.json()) as any).data as { avatar_url: string | null }
  }
  const storedAvatar = async (userId: string) =>
    (await query<{ avatar_url: string | null }>("SELECT avatar_url FROM users WHERE id = $1", [userId]))[0]!.avatar_url

  beforeAll(async () => {
    database = await createPostgresDatabase()
  })

  afterAll(async () => {
    await stop()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it("stores the path, answers it on PUBLIC_URL, and a server on another PUBLIC_URL shows the new base", async () => {
    const oldApi = await start(OLD_BASE)
    const { token, user } = await signIn(oldApi)
    const form = new FormData()
    form.append("avatar", new Blob([png], { type: "image/png" }), "me.png")
    const uploaded = await fetch(`${oldApi}/users/me/avatar`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form
    })
    expect(uploaded.status).toBe(200)
    const shown: string = ((await uploaded.json()) as any).data.avatar_url
    expect(shown).toMatch(new RegExp(`^${OLD_BASE}/uploads/avatars/[0-9a-f-]{36}\\.webp$`))
    const path = new URL(shown).pathname
    expect(await storedAvatar(user.id)).toBe(path)
    expect((await me(oldApi, token)).avatar_url).toBe(shown)
    // A profile change writes the user row again: still the path.
    const renamed = await fetch(`${oldApi}/users/me`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Renamed" })
    })
    expect(renamed.status).toBe(200)
    expect(await storedAvatar(user.id)).toBe(path)
    await stop()

    const newApi = await start(NEW_BASE)
    expect((await me(newApi, token)).avatar_url).toBe(`${NEW_BASE}${path}`)
    expect((await signIn(newApi)).user.avatar_url).toBe(`${NEW_BASE}${path}`)
    // The image is served at that path (FILE_STORE is the database on PostgreSQL).
    const image = await fetch(new URL(path, newApi))
    expect(image.status).toBe(200)
    expect(image.headers.get("content-type")).toBe("image/webp")
    await stop()
  }, 180_000)

  it("migration 0022 turns the absolute URLs stored before it into paths, shown on today's PUBLIC_URL", async () => {
    const api = await start(OLD_BASE)
    const { token, user } = await signIn(api)
    await stop()
    const key = "0b5e1c9a-2f4d-4e8b-9a3c-7d6e5f4a3b2c.webp"
    // The database as a server before 0022 left it: the avatar absolute, on the host of the day.
    await query("UPDATE users SET avatar_url = $1 WHERE id = $2", [`${OLD_BASE}/uploads/avatars/${key}`, user.id])
    // The migrator runs only migrations newer than the last one applied: 0022 is run here as it ran then.
    await runSql(database.url, (sql) => Effect.provideService(relativeAvatarUrls, SqlClient.SqlClient, sql))
    const [other] = await query<{ id: string }>(
      `INSERT INTO users (id, phone_number, avatar_url) VALUES (gen_random_uuid(), '+966550000021', 'https://cdn.elsewhere.example/a.png')
       RETURNING id`
    )

    const newApi = await start(NEW_BASE)
    expect(await storedAvatar(user.id)).toBe(`/uploads/avatars/${key}`)
    expect((await me(newApi, token)).avatar_url).toBe(`${NEW_BASE}/uploads/avatars/${key}`)
    // A URL this server did not make is left as it was.
    expect(await storedAvatar(other!.id)).toBe("https://cdn.elsewhere.example/a.png")
    await stop()
  }, 180_000)
})
