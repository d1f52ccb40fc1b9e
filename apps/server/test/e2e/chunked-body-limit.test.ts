import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { client, relaxedLimits, type SignedIn, signIn, useServer } from "../support/harness.js"

interface RawExchange {
  readonly status: number
  readonly headers: string
  readonly body: unknown
  /** How the socket ended: "end" for the server's FIN, else the error's code (ECONNRESET, EPIPE). */
  readonly ending: string
}

const MiB = 1024 * 1024

/**
 * Sends a request whose body is `totalBytes` of chunked transfer, in 64 KiB chunks, over a plain socket, and
 * collects the answer and how the connection ended. Writing stops when the server answers or the socket errs.
 */
const sendChunked = (
  method: string,
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
  chunkOf: (index: number, size: number) => Buffer
) =>
  new Promise<RawExchange>((resolve) => {
    const url = new URL(baseUrl)
    const socket = connect(Number(url.port), url.hostname)
    const received: Array<Buffer> = []
    let answered = false
    let ending: string | undefined
    const finish = () => {
      const text = Buffer.concat(received).toString("latin1")
      const [head = "", rest = ""] = text.split("\r\n\r\n", 2)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
      let body: unknown = rest
      // The answer is itself chunked or has a length; a JSON envelope is the part between the braces.
      const json = rest.slice(rest.indexOf("{"), rest.lastIndexOf("}") + 1)
      try {
        body = JSON.parse(Buffer.from(json, "latin1").toString("utf8"))
      } catch {}
      resolve({ status, headers: head.toLowerCase(), body, ending: ending ?? "end" })
    }
    socket.on("data", (chunk: Buffer) => {
      answered = true
      received.push(chunk)
    })
    socket.on("error", (error: NodeJS.ErrnoException) => {
      ending ??= error.code ?? error.message
    })
    socket.on("close", finish)
    socket.on("connect", async () => {
      const lines = [
        `${method} ${path} HTTP/1.1`,
        `Host: ${url.host}`,
        "Transfer-Encoding: chunked",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)
      ]
      socket.write(`${lines.join("\r\n")}\r\n\r\n`)
      const size = 64 * 1024
      for (let index = 0, sent = 0; sent < totalBytes && !answered && !socket.destroyed; index++, sent += size) {
        const data = chunkOf(index, size)
        const flushed = socket.write(
          Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")])
        )
        if (!flushed) await new Promise((resume) => socket.once("drain", resume))
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n")
    })
  })

/** A JSON object of `size` bytes per chunk: `{"name":"aaaa…` then more `a`s, never closed. */
const jsonChunk = (index: number, size: number) =>
  index === 0 ? Buffer.from(`{"name":"${"a".repeat(size - 9)}`) : Buffer.alloc(size, "a")

const multipartChunk = (boundary: string) => (index: number, size: number) =>
  index === 0
    ? Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
        ),
        Buffer.alloc(size, 7)
      ])
    : Buffer.alloc(size, 7)

/** decisions.md section 11: a body over the limit is 413 PAYLOAD_TOO_LARGE, however it is sent. */
describe("a chunked body over the limit on postgres", () => {
  const server = useServer("postgres", { settings: relaxedLimits })
  const api = () => client(server())

  const expectCleanRefusal = (exchange: RawExchange) => {
    expect(exchange.status, JSON.stringify(exchange)).toBe(413)
    expect(exchange.body).toEqual({
      success: false,
      error: { code: "PAYLOAD_TOO_LARGE", message: expect.any(String), details: {} }
    })
    expect(exchange.headers).toContain("connection: close")
    expect(exchange.ending).toBe("end")
  }

  it("answers a JSON route 413 in the envelope and closes the connection cleanly", async () => {
    const me: SignedIn = await signIn(server(), api())
    const exchange = await sendChunked(
      "PUT",
      server().baseUrl,
      "/api/v1/users/me",
      { authorization: `Bearer ${me.token}`, "content-type": "application/json", "accept-language": "en" },
      2 * MiB,
      jsonChunk
    )
    expectCleanRefusal(exchange)
    expect((exchange.body as any).error.message).toBe("The request body is too large")
  })

  it("cuts off a client that keeps sending far past the limit, and keeps serving others", async () => {
    const me: SignedIn = await signIn(server(), api())
    const exchange = await sendChunked(
      "PUT",
      server().baseUrl,
      "/api/v1/users/me",
      { authorization: `Bearer ${me.token}`, "content-type": "application/json" },
      40 * MiB,
      jsonChunk
    )
    // The server reads and drops at most 8 MiB past the limit, then closes: the rest is never read.
    expect(exchange.ending, JSON.stringify(exchange)).not.toBe("end")
    expect((await api().get("/users/me", { token: me.token })).status).toBe(200)
  })

  it("answers the avatar upload 413 past its own limit and closes the connection cleanly", async () => {
    const me: SignedIn = await signIn(server(), api())
    const boundary = "talab-boundary"
    const exchange = await sendChunked(
      "POST",
      server().baseUrl,
      "/api/v1/users/me/avatar",
      { authorization: `Bearer ${me.token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      8 * MiB,
      multipartChunk(boundary)
    )
    expectCleanRefusal(exchange)
  })

  it("still takes a chunked JSON body under the limit", async () => {
    const me: SignedIn = await signIn(server(), api())
    const body = Buffer.from(JSON.stringify({ name: "Chunked" }))
    const exchange = await sendChunked(
      "PUT",
      server().baseUrl,
      "/api/v1/users/me",
      { authorization: `Bearer ${me.token}`, "content-type": "application/json", connection: "close" },
      body.length,
      () => body
    )
    expect(exchange.status, JSON.stringify(exchange)).toBe(200)
  })
})
