import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"

/** One request the fake received. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** What the fake answers; an object body is sent as JSON. */
export interface FakeReply {
  readonly status: number
  readonly headers?: Record<string, string>
  readonly body?: unknown
}

export interface FakeHttpServer {
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
}

/**
 * An HTTP/1.1 server on 127.0.0.1 (random port) for the scope's lifetime. `reply` sees each request and its
 * 0-based index; returning a promise that never settles makes the fake hang.
 */
export const fakeHttpServer = (
  reply: (request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>
): Effect.Effect<FakeHttpServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: ReturnType<typeof createServer>; state: FakeHttpServer }>((resume) => {
      const requests: Array<RecordedRequest> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", async () => {
          const recorded: RecordedRequest = {
            method: req.method ?? "",
            path: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          requests.push(recorded)
          const answer = await reply(recorded, requests.length - 1)
          const isJson = typeof answer.body === "object" && answer.body !== null
          res.writeHead(answer.status, {
            ...(isJson ? { "content-type": "application/json" } : {}),
            ...answer.headers
          })
          res.end(isJson ? JSON.stringify(answer.body) : ((answer.body as string | undefined) ?? ""))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, state: { url: `http://127.0.0.1:${port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ state }) => state))

/** A loopback URL on which nothing listens: connections are refused. */
export const refusedUrl: Effect.Effect<string> = Effect.scoped(
  fakeHttpServer(() => ({ status: 200 })).pipe(Effect.map(({ url }) => url))
)
