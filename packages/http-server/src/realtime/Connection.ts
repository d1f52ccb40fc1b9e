import type { Language } from "@talab/core"
import { WebSocket } from "ws"
import { negotiateLanguage } from "../i18n/Language.js"
import { encodeServerFrame, errorFrame } from "./Frames.js"
import { CloseCode, type ErrorFrameCode, type ServerFrame } from "./Protocol.js"

/**
 * Bytes a socket may have waiting to be sent. A client that reads slower than it is written to is cut off
 * instead of making the server hold an ever-growing queue for it; every other socket is unaffected, since
 * sends never wait.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024

/** How long a socket closed by the server has to answer the close handshake before it is cut. */
const CLOSE_GRACE_MS = 2_000

/** Who a socket belongs to, once its auth frame was accepted. */
export interface Identity {
  readonly userId: string
  readonly sessionId: string
  /** When the session ends by itself (refresh-token lifetime), in Clock milliseconds. */
  readonly sessionExpiresAt: number
}

let nextConnectionId = 0

/** One client socket: what it is subscribed to, who it belongs to, and non-blocking sends to it. */
export class Connection {
  readonly id = ++nextConnectionId
  readonly subscriptions = new Set<string>()
  identity: Identity | undefined = undefined
  language: Language
  private answeredLastPing = true

  constructor(
    private readonly ws: WebSocket,
    /** When the socket opened, in Clock milliseconds. */
    readonly openedAt: number,
    private readonly acceptLanguage: string | undefined
  ) {
    this.language = negotiateLanguage(acceptLanguage, undefined)
    ws.on("pong", () => this.markAlive())
  }

  get isOpen() {
    return this.ws.readyState === WebSocket.OPEN
  }

  /** Binds the socket to its user, whose language its errors use unless the handshake asked for another. */
  authenticate(identity: Identity, userLanguage: Language) {
    this.identity = identity
    this.language = negotiateLanguage(this.acceptLanguage, userLanguage)
  }

  /** Queues an already encoded frame; a socket that has too much waiting is cut off instead. */
  sendText(text: string) {
    if (!this.isOpen) return
    if (this.ws.bufferedAmount + Buffer.byteLength(text) > MAX_BUFFERED_BYTES) {
      this.ws.terminate()
      return
    }
    this.ws.send(text)
  }

  send(frame: ServerFrame) {
    this.sendText(encodeServerFrame(frame))
  }

  sendError(code: ErrorFrameCode, extra?: Parameters<typeof errorFrame>[2]) {
    this.send(errorFrame(code, this.language, extra))
  }

  close(code: number, reason: string) {
    if (this.ws.readyState === WebSocket.CLOSED || this.ws.readyState === WebSocket.CLOSING) return
    this.ws.close(code, reason)
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref()
  }

  /** No valid credentials (any more): the error frame, then close 4401. */
  reject() {
    this.sendError("UNAUTHORIZED")
    this.close(CloseCode.unauthorized, "unauthorized")
  }

  markAlive() {
    this.answeredLastPing = true
  }

  /** Pings the client; one that did not answer the previous ping is dead and is cut off. */
  heartbeat() {
    if (this.ws.readyState !== WebSocket.OPEN) return
    if (!this.answeredLastPing) {
      this.ws.terminate()
      return
    }
    this.answeredLastPing = false
    this.ws.ping()
  }
}
