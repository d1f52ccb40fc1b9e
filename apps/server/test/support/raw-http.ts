import { request } from "node:http"

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  /** The parsed JSON body, or the text when it is not JSON. */
  readonly body: any
}

/**
 * One HTTP request with the path sent exactly as given (fetch would resolve dot segments and re-encode
 * it), on a connection of its own.
 */
export const rawRequest = (
  baseUrl: string,
  method: string,
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: string | Uint8Array } = {}
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl)
    // Node sends a GET's body without a length (the server would read it as the next request): say it.
    const length = options.body === undefined ? {} : { "content-length": String(Buffer.byteLength(options.body)) }
    const outgoing = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...length, ...options.headers }, agent: false },
      (incoming) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown = text
          try {
            body = text === "" ? undefined : JSON.parse(text)
          } catch {}
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body })
        })
      }
    )
    outgoing.on("error", reject)
    outgoing.end(options.body)
  })
