import WebSocket from "ws"
import { checkCloseCode, checkServerFrame } from "./frame-contract.js"

export interface Closed {
  readonly code: number
  readonly reason: string
}

export interface WsClientOptions {
  readonly headers?: Record<string, string>
  /** false: the client does not answer the server's pings (a dead peer). */
  readonly autoPong?: boolean
}

interface Waiter {
  readonly predicate: (frame: any) => boolean
  readonly resolve: (frame: any) => void
}

/**
 * A WebSocket test client: every frame it receives, in order, and promises for the next ones. Each frame and the
 * close code are checked against the AsyncAPI document (frame-contract.ts).
 */
export class WsClient {
  readonly frames: Array<any> = []
  readonly pings: Array<number> = []
  private readonly consumed = new Set<number>()
  private waiters: Array<Waiter> = []
  readonly closed: Promise<Closed>

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      const frame = isBinary ? data : JSON.parse(data.toString())
      checkServerFrame(frame)
      const index = this.frames.push(frame) - 1
      const waiter = this.waiters.find((w) => w.predicate(frame))
      if (waiter) {
        this.consumed.add(index)
        this.waiters = this.waiters.filter((w) => w !== waiter)
        waiter.resolve(frame)
      }
    })
    ws.on("ping", () => this.pings.push(Date.now()))
    this.closed = new Promise((resolve) =>
      ws.on("close", (code, reason) => {
        checkCloseCode(code)
        resolve({ code, reason: reason.toString() })
      })
    )
  }

  /** Opens a socket; rejects with the HTTP status, body and headers when the handshake is refused. */
  static connect(url: string, options: WsClientOptions = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: options.headers ?? {}, autoPong: options.autoPong ?? true })
      ws.once("open", () => resolve(new WsClient(ws)))
      ws.once("unexpected-response", (_request, response) => {
        let body = ""
        response.on("data", (chunk: Buffer) => (body += chunk.toString()))
        response.on("end", () =>
          reject(
            Object.assign(new Error(`handshake refused: ${response.statusCode}`), {
              status: response.statusCode,
              body,
              headers: response.headers
            })
          )
        )
      })
      ws.once("error", reject)
    })
  }

  send(frame: unknown) {
    this.ws.send(JSON.stringify(frame))
  }

  sendRaw(data: string | Buffer) {
    this.ws.send(data)
  }

  /** The next frame (not yet taken) that matches, waiting for it up to `timeoutMs`. */
  next(predicate: (frame: any) => boolean = () => true, timeoutMs = 5_000): Promise<any> {
    const index = this.frames.findIndex((frame, i) => !this.consumed.has(i) && predicate(frame))
    if (index >= 0) {
      this.consumed.add(index)
      return Promise.resolve(this.frames[index])
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`))
      }, timeoutMs)
      const waiter: Waiter = {
        predicate,
        resolve: (frame) => {
          clearTimeout(timer)
          resolve(frame)
        }
      }
      this.waiters.push(waiter)
    })
  }

  nextOfType(type: string, timeoutMs?: number) {
    return this.next((frame) => frame.type === type, timeoutMs)
  }

  /** Frames of a type received so far (taken or not). */
  all(type: string) {
    return this.frames.filter((frame) => frame.type === type)
  }

  /** Sends a ping frame and waits for its pong: every frame sent before it has been handled. */
  async barrier() {
    this.send({ type: "ping" })
    await this.nextOfType("pong")
  }

  async auth(token: string) {
    this.send({ type: "auth", token })
    return this.next((frame) => frame.type === "auth_ok" || frame.type === "error")
  }

  async subscribe(conversationId: string) {
    const channel = `conversation.${conversationId}`
    this.send({ type: "subscribe", channel })
    return this.next((frame) => (frame.type === "subscribed" || frame.type === "error") && frame.channel === channel)
  }

  close() {
    this.ws.close()
  }
}

/** A socket signed in as the user, optionally subscribed to conversations. */
export const connectAs = async (
  wsUrl: string,
  token: string,
  conversationIds: ReadonlyArray<string> = [],
  options?: WsClientOptions
) => {
  const client = await WsClient.connect(wsUrl, options)
  const ok = await client.auth(token)
  if (ok.type !== "auth_ok") throw new Error(`auth failed: ${JSON.stringify(ok)}`)
  for (const id of conversationIds) {
    const subscribed = await client.subscribe(id)
    if (subscribed.type !== "subscribed") throw new Error(`subscribe failed: ${JSON.stringify(subscribed)}`)
  }
  return client
}
