import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface ApnsRequest {
  readonly headers: http2.IncomingHttpHeaders
  readonly body: string
}

export interface ApnsReply {
  readonly status: number
  readonly body?: object
}

/**
 * A fake APNs: HTTP/2 over TLS with the given (self-signed) certificate, answering like api.push.apple.com.
 * Trust `tls.cert` as the CA to reach it.
 */
export const fakeApns = (
  tls: { readonly key: string; readonly cert: string },
  reply: (request: ApnsRequest, index: number) => ApnsReply
) =>
  Effect.gen(function* () {
    const requests: Array<ApnsRequest> = []
    const sessions: Array<http2.ServerHttp2Session> = []
    const server = http2.createSecureServer({ key: tls.key, cert: tls.cert })
    server.on("session", (session) => sessions.push(session))
    server.on("stream", (stream, headers) => {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        const request = { headers, body: Buffer.concat(chunks).toString("utf8") }
        requests.push(request)
        const answer = reply(request, requests.length - 1)
        stream.respond({
          ":status": answer.status,
          "apns-id": "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E",
          ...(answer.body !== undefined ? { "content-type": "application/json" } : {})
        })
        stream.end(answer.body !== undefined ? JSON.stringify(answer.body) : undefined)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const session of sessions) session.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { origin: `https://127.0.0.1:${port}`, requests, sessions }
  })
