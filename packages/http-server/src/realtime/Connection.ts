import { CloseCode, type ErrorFrameCode, type ServerFrame } from "@talab/contract"
import type { Language } from "@talab/core"
import { WebSocket } from "ws"
import { negotiateLanguage } from "../i18n/Language.js"
import { encodeServerFrame, errorFrame } from "./Frames.js"

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

interface HeldFrame {
  readonly seq: number
  readonly text: string
}

/** One client socket: what it is subscribed to, who it belongs to, and non-blocking sends to it. */
export class Connection {
  readonly id = ++nextConnectionId
  readonly subscriptions = new Set<string>()
  identity: Identity | undefined = undefined
  language: Language
  private chosenLanguage: Language | undefined = undefined
  private answeredLastPing = true
  private cutScheduled = false
  // Both made at the socket's first catch-up: an empty Map would be ~180 bytes of every idle socket, and idle
  // sockets are most of them.
  /** Live message frames of conversations whose catch-up is running, held until it has been sent. */
  private held: Map<string, Array<HeldFrame>> | undefined = undefined
  /** Per conversation, the last seq a catch-up sent: a live frame at or below it was sent already. */
  private caughtUpTo: Map<string, number> | undefined = undefined

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

  /**
   * The `auth` frame's `language`: it wins over the handshake's and the user's, since a browser cannot set
   * `Accept-Language` on a WebSocket.
   */
  chooseLanguage(language: Language | undefined) {
    if (language === undefined) return
    this.chosenLanguage = language
    this.language = language
  }

  /** Binds the socket to its user, whose language its errors use unless the client or the handshake chose one. */
  authenticate(identity: Identity, userLanguage: Language) {
    this.identity = identity
    this.language = this.chosenLanguage ?? negotiateLanguage(this.acceptLanguage, userLanguage)
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

  /**
   * A live `message` frame of a conversation: held while that conversation's catch-up runs, dropped when the
   * catch-up sent it already, else sent. `seq` is read only when it matters (the frame is parsed then).
   */
  deliverMessage(conversationId: string, seq: () => number, text: string) {
    const held = this.held?.get(conversationId)
    if (held !== undefined) {
      held.push({ seq: seq(), text })
      return
    }
    const caughtUpTo = this.caughtUpTo?.get(conversationId)
    if (caughtUpTo !== undefined && seq() <= caughtUpTo) return
    this.sendText(text)
  }

  /** Starts holding the conversation's live messages back (a catch-up is about to read the missed ones). */
  holdLive(conversationId: string) {
    this.held ??= new Map()
    if (!this.held.has(conversationId)) this.held.set(conversationId, [])
  }

  /**
   * The catch-up sent everything up to `lastSeq`: from now on a live frame at or below it is a duplicate. The
   * held frames after it go out, in seq order.
   */
  releaseLive(conversationId: string, lastSeq: number) {
    this.caughtUpTo ??= new Map()
    const caughtUpTo = Math.max(lastSeq, this.caughtUpTo.get(conversationId) ?? 0)
    this.caughtUpTo.set(conversationId, caughtUpTo)
    const held = this.held?.get(conversationId) ?? []
    this.held?.delete(conversationId)
    for (const frame of held.sort((a, b) => a.seq - b.seq)) if (frame.seq > caughtUpTo) this.sendText(frame.text)
  }

  /** Forgets the catch-up state of a conversation the socket left. */
  forgetCatchUp(conversationId: string) {
    this.held?.delete(conversationId)
    this.caughtUpTo?.delete(conversationId)
  }

  sendError(code: ErrorFrameCode, extra?: Parameters<typeof errorFrame>[2]) {
    this.send(errorFrame(code, this.language, extra))
  }

  /**
   * Starts the closing handshake, and cuts the socket if it has not ended within the grace. Also for a socket
   * already closing: when the client started the close and then stopped reading, `ws` would wait 30 s for it, and
   * so would the server's shutdown.
   */
  close(code: number, reason: string) {
    if (this.ws.readyState === WebSocket.CLOSED || this.cutScheduled) return
    if (this.ws.readyState !== WebSocket.CLOSING) this.ws.close(code, reason)
    this.cutScheduled = true
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
