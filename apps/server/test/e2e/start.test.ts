import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { migratedDataDir } from "../../../../packages/http-server/test/support/migrated-databases.js"
import { eventually } from "../support/eventually.js"
import {
  freePort,
  halfSentRequest,
  killStarted,
  refusesNewConnections,
  startProcess,
  waitUntilLive
} from "../support/process.js"

/*
 * `pnpm start` at the repository root, as the README's first command runs it: it builds the server and
 * execs Node, so the signal a container or systemd sends to the pnpm process reaches the server itself.
 * Like the README's command it sets no DATABASE_URL: the embedded database on DATA_DIR, here a copy of the
 * run's migrated one (the run's teardown removes it), so the start does not pay initdb and the migrations again.
 */
const workspaceDirectory = fileURLToPath(new URL("../../../..", import.meta.url))

afterAll(() => {
  killStarted()
})

describe("pnpm start", () => {
  it("passes SIGTERM to the server, which finishes the request in flight and exits 0", async () => {
    const port = await freePort()
    const { child, output, exited } = startProcess("pnpm", ["start"], workspaceDirectory, {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: await migratedDataDir()
    })
    await waitUntilLive(port, exited)
    const inFlight = await halfSentRequest(
      port,
      "/api/v1/auth/request-otp",
      { phone_number: "+966501234567" },
      "through-pnpm-1"
    )

    child.kill("SIGTERM")
    // Draining: the port stops listening, and pnpm still waits for the server, which waits for the request.
    await eventually(async () => ((await refusesNewConnections(port)) ? true : undefined), "the port to close")
    expect(child.exitCode).toBeNull()

    inFlight.finish()
    const answer = await inFlight.answer
    expect(answer.status).toBe(200)
    expect(await exited).toEqual({ code: 0, signal: null })
    expect(output.stdout).toContain("through-pnpm-1")
    // Nothing is left listening once pnpm has exited.
    expect(await refusesNewConnections(port)).toBe(true)
  }, 300_000)
})
