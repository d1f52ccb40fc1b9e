import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../http-server/test/support/migrated-databases.js"
import { stallEventLoop } from "../../http-server/test/support/stalled-event-loop.js"
import { startTestServer, type TestServer, type TestServerOptions } from "../src/index.js"

const REDIS_URL = process.env.TALAB_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

describe("test servers sharing Redis", () => {
  const started: Array<TestServer> = []
  afterAll(() => Promise.allSettled(started.map((server) => server.close())))

  /** Two servers on one prefix, one public read a minute; the second read, made while the loop stalls: its status. */
  const secondReadThroughStall = async (settings: TestServerOptions["settings"]) => {
    const options = await withMigratedDump<TestServerOptions>({
      redisUrl: REDIS_URL,
      redisPrefix: `talab-testkit:${randomUUID()}:`,
      settings: { publicRoutesPerMinute: 1, ...settings }
    })
    const [first, second] = [await startTestServer(options), await startTestServer(options)]
    started.push(first, second)
    expect((await fetch(`${first.baseUrl}/api/v1/openapi.json`)).status).toBe(200)
    const stop = stallEventLoop(800)
    try {
      return (await fetch(`${second.baseUrl}/api/v1/openapi.json`)).status
    } finally {
      stop()
    }
  }

  it("keep sharing a budget while their event loop is held past the 500 ms a server waits on Redis", async () => {
    expect(await secondReadThroughStall({})).toBe(429)
    // With a server's own wait, the count is made in the second server's memory, which has room.
    expect(await secondReadThroughStall({ redisLimiterTimeoutMs: 500 })).toBe(200)
  }, 60_000)
})
