import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import {
  freePort,
  killStartedServers,
  migratedDataDir,
  startServer as startChild,
  waitUntilLive
} from "../support/child-server.js"
import { eventually } from "../support/eventually.js"
import { halfSentRequest, refusesNewConnections } from "../support/process.js"

const dataDir = mkdtempSync(join(tmpdir(), "talab-config-"))

/** A start on an in-memory database (these never reach it), with the given variables. */
const startServer = (variables: Record<string, string>) =>
  startChild({ DATA_DIR: dataDir, DATABASE_URL: "memory://", ...variables })

afterEach(killStartedServers)
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

// Every variable's rule is checked in packages/http-server/test/config.test.ts, through the same parse main.ts
// runs; these prove the process side (the exit, the single line, nothing secret echoed) with one start each for a
// malformed value, a production requirement, a refusal whose input holds a secret and one whose URL holds a
// password. Each is a Node process loading the whole server (about a second of CPU).
describe("bad configuration stops the start with one line naming the variable", () => {
  it.each([
    ["PORT", { PORT: "abc" }],
    ["JWT_SECRET", { NODE_ENV: "production" }],
    ["JWT_SECRET", { JWT_SECRET: "too-short-a-secret" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://admin:hunter2@db.example/talab" }]
  ])(
    "%s: %j",
    async (variable, variables) => {
      const { output, exited } = startServer(variables)
      const { code } = await exited
      expect(code).not.toBe(0)
      expect(code).not.toBeNull()
      const lines = output.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${variable}\\b`))
      // A secret or a password in a URL is never echoed back.
      for (const value of Object.values(variables))
        if (/secret|hunter2/.test(value)) expect(output.stderr).not.toContain(value)
      expect(output.stderr).not.toContain("hunter2")
    },
    60_000
  )
})

describe("SIGTERM", () => {
  it("stops accepting, finishes the request in flight, logs it as JSON in production, and exits 0", async () => {
    const port = await freePort()
    const { child, output, exited } = startChild({
      DATA_DIR: migratedDataDir(),
      PORT: String(port),
      NODE_ENV: "production",
      JWT_SECRET: "a-production-secret-of-at-least-32-bytes",
      ALLOW_CONSOLE_PROVIDERS: "true"
    })
    await waitUntilLive(port, exited)

    const inFlight = await halfSentRequest(
      port,
      "/api/v1/auth/request-otp",
      { phone_number: "+966501234567" },
      "in-flight-1"
    )
    child.kill("SIGTERM")
    // Draining: the port stops listening while the request in flight keeps the server up.
    await eventually(async () => ((await refusesNewConnections(port)) ? true : undefined), "the port to close")
    expect(child.exitCode).toBeNull()

    inFlight.finish()
    const answer = await inFlight.answer
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).success).toBe(true)
    expect(await exited).toEqual({ code: 0, signal: null })

    const records = output.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown>; logLevel: string })
    const requestLine = records.find(
      (record) => record.annotations?.request_id === "in-flight-1" && record.message === "request"
    )
    expect(requestLine?.annotations).toMatchObject({ method: "POST", path: "/api/v1/auth/request-otp", status: 200 })
    expect(typeof requestLine?.annotations.duration_ms).toBe("number")
  }, 90_000)
})
