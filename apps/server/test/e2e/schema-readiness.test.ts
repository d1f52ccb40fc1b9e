import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPostgresDatabase } from "../../../../packages/http-server/test/support/test-run.js"
import {
  type ChildServer,
  freePort,
  killStartedServers,
  runTalabCommand,
  startServer,
  waitUntilLive
} from "../support/child-server.js"
import { eventually } from "../support/eventually.js"

/*
 * MIGRATE_ON_START=false on a database with no schema yet, on PostgreSQL, as an operator who migrates by hand:
 * the server is not ready and answers calls 503 until `talab migrate` has run, then it is ready and serves, with
 * no restart.
 */

describe("a database not yet migrated (MIGRATE_ON_START=false)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>
  let server: ChildServer
  let baseUrl: string

  beforeAll(async () => {
    // No template: an empty database, as a fresh deployment has.
    database = await createPostgresDatabase(undefined, "talab_unmigrated_")
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    server = startServer({
      PORT: String(port),
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      MIGRATE_ON_START: "false",
      JWT_SECRET: "schema-readiness-test-secret-of-enough-length",
      ALLOW_CONSOLE_PROVIDERS: "true"
    })
    await waitUntilLive(port, server)
  }, 120_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM")
      await server.exited
    }
    killStartedServers()
    await database?.drop()
  })

  const requestOtp = () =>
    fetch(`${baseUrl}/api/v1/auth/request-otp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number: "+966550001234" })
    })

  it("is not ready, says why, and answers API calls 503 SERVICE_UNAVAILABLE in the envelope", async () => {
    const ready = await fetch(`${baseUrl}/health/ready`)
    expect(ready.status).toBe(503)
    const body = (await ready.json()) as { status: string; database: string; reason: string }
    expect(body).toMatchObject({ status: "unavailable", database: "behind" })
    expect(body.reason).toMatch(/migration 0 of \d+: run `talab migrate`/)

    expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200)
    // The admin console's page needs no table (its calls meet this gate themselves): the bundle carries it.
    const consolePage = await fetch(`${baseUrl}/admin/`)
    expect(consolePage.status).toBe(200)
    expect(await consolePage.text()).toContain('src="/admin/assets/app.js"')
    for (const response of [
      await requestOtp(),
      await fetch(`${baseUrl}/api/v1/users/me`, { headers: { authorization: "Bearer nothing" } }),
      await fetch(`${baseUrl}/api/v1/requests`)
    ]) {
      expect(response.status).toBe(503)
      expect(response.headers.get("retry-after")).toBe("5")
      expect(await response.json()).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } })
    }
  })

  it("becomes ready and serves once `talab migrate` has run, without a restart", async () => {
    const migrate = runTalabCommand(["migrate"], { DATABASE_URL: database.url })
    expect(await migrate.exited).toEqual({ code: 0, signal: null })

    await eventually(
      async () => ((await fetch(`${baseUrl}/health/ready`)).status === 200 ? true : undefined),
      "the server ready after the migration"
    )
    const requested = await requestOtp()
    expect(requested.status).toBe(200)
    expect(server.child.exitCode).toBe(null)
  })
})
