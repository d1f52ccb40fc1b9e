import type { ChatMessage, ClientFrame, ServerFrame, UserEvent } from "./frames.js"
import { parseServerFrame } from "./frames.js"
import { RealtimeError } from "./RealtimeError.js"
import { OPEN, type WebSocketConstructor, type WebSocketLike } from "./WebSocketLike.js"

/** Close code the server uses when the token is refused or the session ended. */
const CLOSE_UNAUTHORIZED = 4401

/** How a connection ended. */
export type ConnectionEnd =
  | { readonly kind: "dropped" }
  | { readonly kind: "unauthorized"; readonly authenticated: boolean }
  | { readonly kind: "abandoned" }

type Reply =
  /** `catchUp`: a subscribe with `since_seq`, answered by `caught_up` once the missed messages were sent. */
  | { readonly kind: "subscribe" | "unsubscribe" | "catchUp"; readonly channel: string }
  | { readonly kind: "message"; readonly clientId: string }

interface PendingReply {
  readonly expects: Reply
  readonly resolve: (frame: ServerFrame) => void
  readonly reject: (error: RealtimeError) => void
  readonly timer: ReturnType<typeof setTimeout>
}

/** What a connection tells its owner. */
export interface ConnectionHandlers {
  /** A chat message delivered live. */
  readonly onMessage: (message: ChatMessage) => void
  /** An error frame that answers no request of this connection. */
  readonly onUnsolicitedError: (error: RealtimeError) => void
  /** An event on the user's channel (a request matching the seller's alerts). */
  readonly onUserEvent?: (event: UserEvent) => void
}

/** Timing of a connection. */
export interface ConnectionTimings {
  readonly replyTimeoutMs: number
  readonly heartbeatIntervalMs: number
}

/**
 * One WebSocket from open to close: authenticates, matches the server's replies to the frames that
 * asked for them, keeps the socket alive with pings, and settles `ended` once, however it ends.
 */
export class Connection {
  private readonly pending: Array<PendingReply> = []
  private heartbeat: ReturnType<typeof setInterval> | undefined
  private probe: ReturnType<typeof setTimeout> | undefined
  private awaitingPong = false
  private authenticated = false
  private settleEnd!: (end: ConnectionEnd) => void
  /** Settles when the socket is gone. */
  readonly ended: Promise<ConnectionEnd> = new Promise((resolve) => {
    this.settleEnd = resolve
  })
  private finished = false

  private constructor(
    private readonly socket: WebSocketLike,
    private readonly handlers: ConnectionHandlers,
    private readonly timings: ConnectionTimings
  ) {}

  /**
   * Opens a socket and authenticates with `token`, asking for error messages in `language`. Resolves with the connection once the server said
   * `auth_ok`; otherwise with how it ended (refused token, network failure, timeout).
   */
  static async open(
    WebSocket: WebSocketConstructor,
    url: string,
    auth: { readonly token: string; readonly language: "ar" | "en" | undefined },
    handlers: ConnectionHandlers,
    timings: ConnectionTimings
  ): Promise<{ readonly connection: Connection; readonly userId: string } | { readonly failed: ConnectionEnd }> {
    let socket: WebSocketLike
    try {
      socket = new WebSocket(url)
    } catch {
      return { failed: { kind: "dropped" } }
    }
    const connection = new Connection(socket, handlers, timings)
    const authenticated = new Promise<string>((resolve) => {
      connection.onAuthenticated = resolve
    })
    const { token, language } = auth
    socket.onopen = () =>
      connection.sendFrame(language === undefined ? { type: "auth", token } : { type: "auth", token, language })
    socket.onmessage = (event) => connection.receive(event.data)
    socket.onclose = (event) =>
      connection.finish(
        event.code === CLOSE_UNAUTHORIZED
          ? { kind: "unauthorized", authenticated: connection.authenticated }
          : { kind: "dropped" }
      )
    socket.onerror = () => {
      // A close event follows every error event; the end is settled there.
    }
    const timeout = setTimeout(() => connection.abandon(), timings.replyTimeoutMs)
    const outcome = await Promise.race([authenticated, connection.ended])
    clearTimeout(timeout)
    if (typeof outcome === "string") {
      connection.startHeartbeat()
      return { connection, userId: outcome }
    }
    return { failed: outcome }
  }

  private onAuthenticated: (userId: string) => void = () => {}

  /** Sends a frame that expects a reply; resolves with the reply, rejects on an error frame or timeout. */
  request(frame: ClientFrame, expects: Reply): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      if (this.finished || this.socket.readyState !== OPEN) {
        reject(new RealtimeError("CONNECTION_LOST", "The connection is not open"))
        return
      }
      const timer = setTimeout(() => {
        this.removePending(entry)
        reject(new RealtimeError("TIMEOUT", `No reply to the ${frame.type} frame in ${this.timings.replyTimeoutMs} ms`))
      }, this.timings.replyTimeoutMs)
      const entry: PendingReply = { expects, resolve, reject, timer }
      this.pending.push(entry)
      this.sendFrame(frame)
    })
  }

  /** Closes the socket without waiting for the closing handshake (dead network, client closed). */
  abandon(): void {
    if (this.finished) return
    this.detach()
    try {
      this.socket.close(1000, "client closed")
    } catch {
      // Closing a socket that never opened may throw; it is dropped either way.
    }
    this.finish({ kind: "abandoned" })
  }

  private sendFrame(frame: ClientFrame) {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(frame))
  }

  private receive(data: unknown) {
    this.awaitingPong = false
    const frame = parseServerFrame(typeof data === "string" ? data : String(data))
    if (frame === undefined) return
    switch (frame.type) {
      case "auth_ok":
        this.authenticated = true
        this.onAuthenticated(frame.user_id)
        return
      case "message":
        this.handlers.onMessage(frame.data)
        return
      case "subscribed":
        this.settle((e) => e.kind === "subscribe" && e.channel === frame.channel, frame)
        return
      case "unsubscribed":
        this.settle((e) => e.kind === "unsubscribe" && e.channel === frame.channel, frame)
        return
      case "caught_up":
        this.settle((e) => e.kind === "catchUp" && e.channel === frame.channel, frame)
        return
      case "ack":
        this.handlers.onMessage(frame.data)
        this.settle((e) => e.kind === "message" && e.clientId === frame.client_id, frame)
        return
      case "error":
        this.receiveError(frame)
        return
      case "pong":
        return
      case "event":
        this.handlers.onUserEvent?.(frame)
        return
    }
  }

  private receiveError(frame: Extract<ServerFrame, { type: "error" }>) {
    const error = new RealtimeError(frame.code, frame.message, frame.details ? { details: frame.details } : {})
    if (!this.authenticated) return // the server closes with 4401 next; the end is settled there
    /*
     * Error frames name no request, but the server answers a socket's frames in order: a frame that names
     * its message (client_id) or channel settles that one, any other settles the oldest waiting request.
     */
    const index =
      frame.client_id !== undefined
        ? this.pending.findIndex((p) => p.expects.kind === "message" && p.expects.clientId === frame.client_id)
        : frame.channel !== undefined
          ? this.pending.findIndex((p) => "channel" in p.expects && p.expects.channel === frame.channel)
          : 0
    const entry = this.pending[index]
    if (index < 0 || entry === undefined) {
      this.handlers.onUnsolicitedError(error)
      return
    }
    this.pending.splice(index, 1)
    clearTimeout(entry.timer)
    entry.reject(error)
  }

  private settle(matches: (expects: Reply) => boolean, frame: ServerFrame) {
    const index = this.pending.findIndex((p) => matches(p.expects))
    const entry = this.pending[index]
    if (entry === undefined) return
    this.pending.splice(index, 1)
    clearTimeout(entry.timer)
    entry.resolve(frame)
  }

  private removePending(entry: PendingReply) {
    const index = this.pending.indexOf(entry)
    if (index >= 0) this.pending.splice(index, 1)
  }

  /** Stops pinging (the app went to the background, where timers are unreliable and the radio is costly). */
  pauseHeartbeat() {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat)
    this.heartbeat = undefined
    this.awaitingPong = false
    if (this.probe !== undefined) clearTimeout(this.probe)
    this.probe = undefined
  }

  /**
   * Pings at once and gives the socket up unless the server answers within the reply timeout (after a while in
   * the background it is often dead without a close), then pings on the usual interval again.
   */
  resumeHeartbeat() {
    if (this.finished) return
    this.pauseHeartbeat()
    this.awaitingPong = true
    this.sendFrame({ type: "ping" })
    this.probe = setTimeout(() => {
      this.probe = undefined
      if (this.awaitingPong) this.abandon()
    }, this.timings.replyTimeoutMs)
    this.startHeartbeat()
  }

  private startHeartbeat() {
    if (this.timings.heartbeatIntervalMs <= 0 || this.finished) return
    this.heartbeat = setInterval(() => {
      if (this.awaitingPong) {
        this.abandon()
        return
      }
      this.awaitingPong = true
      this.sendFrame({ type: "ping" })
    }, this.timings.heartbeatIntervalMs)
  }

  private detach() {
    // No-ops rather than null: `ws` throws an error event that has no listener (closing while connecting).
    const ignore = () => {}
    this.socket.onopen = ignore
    this.socket.onmessage = ignore
    this.socket.onclose = ignore
    this.socket.onerror = ignore
  }

  private finish(end: ConnectionEnd) {
    if (this.finished) return
    this.finished = true
    this.pauseHeartbeat()
    for (const entry of this.pending.splice(0)) {
      clearTimeout(entry.timer)
      entry.reject(new RealtimeError("CONNECTION_LOST", "The connection closed before the server replied"))
    }
    this.settleEnd(end)
  }
}
