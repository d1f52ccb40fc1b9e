import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withMigratedDump } from "../../http-server/test/support/migrated-databases.js"
import { CLOSE_GRACE_MS } from "../src/Connections.js"
import { startTestServer, type TestServer, type TestServerOptions } from "../src/index.js"

describe("TestServer.close", () => {
  // One server for each test to close, started under the hooks' limit: a start is seconds of CPU, which on a
  // loaded machine used up the test's own.
  let servers: ReadonlyArray<TestServer> = []
  beforeAll(async () => {
    const options = await withMigratedDump<TestServerOptions>({})
    servers = [await startTestServer(options), await startTestServer(options)]
  })
  // A test that failed before closing its server leaves it to this.
  afterAll(() => Promise.allSettled(servers.map((server) => server.close())))

  it("does not wait on a client that sent half a request and went quiet", async () => {
    const server = servers[0]!
    const { port } = new URL(server.baseUrl)
    const socket = connect(Number(port), "127.0.0.1")
    const ended = new Promise((resolve) => socket.once("close", resolve))
    socket.on("error", () => undefined)
    await new Promise((resolve) => socket.once("connect", resolve))
    socket.write("GET /api/v1/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    await new Promise((resolve) => setTimeout(resolve, 100))

    const started = Date.now()
    await server.close()
    // Node would keep that connection until its headers timeout (a minute).
    expect(Date.now() - started).toBeLessThan(5_000)
    await ended
    expect(socket.destroyed).toBe(true)
  }, 30_000)

  it("closes the idle connections a fetch keeps alive at once", async () => {
    const server = servers[1]!
    expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200)
    const started = Date.now()
    await server.close()
    // Well inside the grace a lingering connection would get.
    expect(Date.now() - started).toBeLessThan(CLOSE_GRACE_MS / 2)
  }, 30_000)
})
