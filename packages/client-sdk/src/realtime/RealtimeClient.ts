import { Emitter } from "../util/Emitter.js"
import { randomId } from "../util/uuid.js"
import { type BackoffOptions, backoffDelay } from "./backoff.js"
import { Connection, type ConnectionEnd } from "./Connection.js"
import { type ChatMessage, conversationChannel, type UserEvent } from "./frames.js"
import { MessageLog, type MessagePosition } from "./MessageLog.js"
import { RealtimeError } from "./RealtimeError.js"
import { resolveWebSocket, type WebSocketConstructor } from "./WebSocketLike.js"

/** A page of GET /conversations/{id}/messages: newest first with `before`, oldest first with `after_seq`. */
export interface MessagePage {
  readonly messages: ReadonlyArray<Omit<ChatMessage, "conversation_id"> & { readonly conversation_id?: string }>
  readonly has_more: boolean
}

/** What the realtime client needs from the REST client it belongs to. */
export interface RealtimeHost {
  readonly webSocketUrl: string
  /** The stored access token, if signed in. */
  readonly accessToken: () => Promise<string | undefined>
  /** A newer access token after the server refused `rejected`, or undefined when signed out. */
  readonly renewAccessToken: (rejected: string) => Promise<string | undefined>
  /** GET /conversations/{id}/messages?before&limit (the newest message, where a first subscription starts) */
  readonly messagesBefore: (conversationId: string, before: string | undefined, limit: number) => Promise<MessagePage>
  /** GET /conversations/{id}/messages?after_seq&limit (what a resume missed, oldest first) */
  readonly messagesAfter: (conversationId: string, afterSeq: number, limit: number) => Promise<MessagePage>
  /** Listens for the end of the session. */
  readonly onSignedOut: (listener: () => void) => () => void
  /** The client's language (`"ar"`, `"en"`, or a tag such as `"en-GB"`): the socket's error messages use it. */
  readonly language?: () => string | undefined
}

/** Settings of a realtime client. */
export interface RealtimeOptions {
  /** The WebSocket address; the REST client's (`${baseUrl}/ws`) by default. */
  readonly url?: string
  /** The WebSocket class; `globalThis.WebSocket`, else the `ws` package, by default. */
  readonly WebSocket?: WebSocketConstructor
  /** How long to wait for the server's reply to auth, subscribe or one message frame (ms, default 10 000). */
  readonly replyTimeoutMs?: number
  /** How long send() may take in all, reconnections and resends included (ms, default 30 000). */
  readonly sendTimeoutMs?: number
  /** Reconnection delays (exponential with jitter). */
  readonly reconnect?: BackoffOptions
  /** How often to ping; a socket that stays silent for that long is replaced (ms, default 25 000, 0 = never). */
  readonly heartbeatIntervalMs?: number
  /** Messages fetched per REST page when catching up (default 100, the API's maximum). */
  readonly catchUpPageSize?: number
  /**
   * How long a message that came ahead of a missing one waits for it before the missing ones are fetched
   * over REST (ms, default 1 000).
   */
  readonly gapTimeoutMs?: number
}

/**
 * `idle` before connect(); `connecting` for the first connection; `open` when authenticated (and
 * subscriptions restored); `reconnecting` between a lost connection and the next; `closed` after close()
 * or when the session ended.
 */
export type RealtimeState = "idle" | "connecting" | "open" | "reconnecting" | "closed"

/** Events of a {@link RealtimeClient}. */
export type RealtimeEvents = {
  /**
   * A message of a conversation, each exactly once and in `seq` order per conversation: delivered live,
   * caught up after a (re)subscription, or acknowledged after your own send().
   */
  readonly message: ChatMessage
  /** The connection state changed. */
  readonly state: RealtimeState
  /** An error not tied to a call of yours (an unsolicited error frame, a failed catch-up). */
  readonly error: RealtimeError
  /** A resumed subscription has emitted what it missed (`count` messages) and is live. */
  readonly caughtUp: { readonly conversationId: string; readonly count: number }
  /**
   * An event on your user channel: `request_match` when a new request matches your alert rules (sellers),
   * `offer_created` when a seller makes an offer on one of your requests (buyers).
   */
  readonly event: UserEvent
}

type ConnectOutcome =
  | { readonly kind: "authenticated" | "failed" | "token-renewed" }
  | { readonly kind: "fatal"; readonly code: "CLOSED" | "SIGNED_OUT"; readonly reason: string }

const signedOut: ConnectOutcome = { kind: "fatal", code: "SIGNED_OUT", reason: "The session ended" }

interface Subscription {
  /** Resolved when the server first confirmed the subscription. */
  confirmed: Deferred<void>
}

interface Deferred<T> {
  readonly promise: Promise<T>
  readonly resolve: (value: T) => void
  readonly reject: (error: unknown) => void
}

const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  promise.catch(() => {})
  return { promise, resolve, reject }
}

/**
 * The chat over WebSocket (decisions.md section 9). It authenticates with the session's access token,
 * subscribes to conversations, sends messages and resolves each with the server's ack, and emits every
 * message once, in `seq` order per conversation. When the connection drops it reconnects with exponential
 * backoff and jitter, refreshes the access token if the server refuses it, and resumes every subscription
 * from the last `seq` it emitted (`since_seq`), so the app never shows a gap or a duplicate.
 *
 * @example
 * const live = talab.realtime()
 * live.on("message", (message) => appendToChat(message))
 * await live.connect()
 * await live.subscribe(conversationId, { after: lastShownMessage })
 * const stored = await live.send(conversationId, "Is it still available?")
 */
export class RealtimeClient {
  private readonly events = new Emitter<RealtimeEvents>()
  private readonly log = new MessageLog()
  private readonly subscriptions = new Map<string, Subscription>()
  /** Conversations whose missing messages are being fetched over REST, or will be when their timer fires. */
  private readonly gapFills = new Map<string, ReturnType<typeof setTimeout> | Promise<void>>()
  private readonly options: Required<Omit<RealtimeOptions, "WebSocket" | "url" | "reconnect">> & {
    readonly reconnect: BackoffOptions
  }
  private readonly url: string
  private currentState: RealtimeState = "idle"
  private connection: Connection | undefined
  /** The connection loop running, if any; each loop has its own number and stops once it is not the current one. */
  private runningLoop: number | undefined
  private loopCounter = 0
  private wakeUp: (() => void) | undefined
  private openWaiters: Array<Deferred<void>> = []
  private currentUserId: string | undefined
  private inBackground = false
  private readonly stopListeningToSession: () => void

  constructor(
    private readonly host: RealtimeHost,
    private readonly settings: RealtimeOptions = {}
  ) {
    this.url = settings.url ?? host.webSocketUrl
    this.options = {
      replyTimeoutMs: settings.replyTimeoutMs ?? 10_000,
      sendTimeoutMs: settings.sendTimeoutMs ?? 30_000,
      heartbeatIntervalMs: settings.heartbeatIntervalMs ?? 25_000,
      catchUpPageSize: settings.catchUpPageSize ?? 100,
      gapTimeoutMs: settings.gapTimeoutMs ?? 1_000,
      reconnect: settings.reconnect ?? {}
    }
    this.stopListeningToSession = host.onSignedOut(() => this.shutDown("SIGNED_OUT", "The session ended"))
  }

  /** The connection state. */
  get state(): RealtimeState {
    return this.currentState
  }

  /** The signed-in user's id, once authenticated. */
  get userId(): string | undefined {
    return this.currentUserId
  }

  /** Listens to `message`, `state`, `error` or `caughtUp`; returns a function that stops listening. */
  on<E extends keyof RealtimeEvents>(event: E, listener: (payload: RealtimeEvents[E]) => void): () => void {
    return this.events.on(event, listener)
  }

  /**
   * Connects and authenticates; resolves once open. A failed attempt is retried with backoff (the
   * promise waits); it rejects when the client is closed or the session ends first.
   */
  connect(): Promise<void> {
    if (this.currentState === "open") return Promise.resolve()
    const waiter = deferred<void>()
    this.openWaiters.push(waiter)
    if (this.runningLoop === undefined) {
      this.loopCounter += 1
      const loop = this.loopCounter
      this.runningLoop = loop
      this.setState("connecting")
      void this.run(loop).finally(() => {
        if (this.runningLoop === loop) this.runningLoop = undefined
      })
    }
    return waiter.promise
  }

  /**
   * Subscribes to a conversation's messages, now and after every reconnect. Pass the last message the app
   * shows (or its `seq`) as `after` and the messages after it are emitted too, oldest first; without it the
   * subscription starts where the conversation stands. After a reconnect it resumes from the last `seq`
   * emitted. Resolves once the server confirmed and the missed messages were emitted; rejects with the
   * server's error (`FORBIDDEN`, `NOT_FOUND`).
   */
  async subscribe(conversationId: string, options: { readonly after?: MessagePosition } = {}): Promise<void> {
    if (options.after !== undefined) this.emit(this.log.startAfter(conversationId, options.after.seq))
    const existing = this.subscriptions.get(conversationId)
    if (existing !== undefined) return existing.confirmed.promise
    const subscription: Subscription = { confirmed: deferred() }
    this.subscriptions.set(conversationId, subscription)
    if (this.connection !== undefined && this.currentState === "open") {
      void this.subscribeOn(this.connection, conversationId, subscription)
    }
    return subscription.confirmed.promise
  }

  /** Stops the messages of a conversation. */
  async unsubscribe(conversationId: string): Promise<void> {
    if (!this.subscriptions.delete(conversationId)) return
    const pendingFill = this.gapFills.get(conversationId)
    if (pendingFill !== undefined && !(pendingFill instanceof Promise)) {
      clearTimeout(pendingFill)
      this.gapFills.delete(conversationId)
    }
    const channel = conversationChannel(conversationId)
    if (this.connection !== undefined && this.currentState === "open") {
      await this.connection.request({ type: "unsubscribe", channel }, { kind: "unsubscribe", channel }).catch(() => {})
    }
  }

  /**
   * Sends a message and resolves with it as stored, from the server's ack. Each message carries a
   * `client_id` (a random UUID unless you give one, e.g. from your own outbox); the server stores a
   * `client_id` once, so when the connection drops before the ack the message is sent again after the
   * reconnect without risk of a duplicate. Rejects with the server's error code (`RATE_LIMITED`,
   * `FORBIDDEN`, `NOT_FOUND`, `VALIDATION_ERROR`), or `TIMEOUT` when no ack came within `sendTimeoutMs`.
   * `attachmentIds`: up to 4 of your own unattached images (`uploadImage`), shown in order; with them the text may
   * be `""`.
   */
  async send(
    conversationId: string,
    messageText: string,
    options: { readonly clientId?: string; readonly attachmentIds?: ReadonlyArray<string> } = {}
  ): Promise<ChatMessage> {
    const clientId = options.clientId ?? randomId()
    const attachments = options.attachmentIds?.length ? { attachment_ids: [...options.attachmentIds] } : {}
    const deadline = Date.now() + this.options.sendTimeoutMs
    for (;;) {
      const connection = await this.openConnection(deadline)
      try {
        const reply = await connection.request(
          {
            type: "message",
            conversation_id: conversationId,
            message_text: messageText,
            client_id: clientId,
            ...attachments
          },
          { kind: "message", clientId }
        )
        if (reply.type !== "ack") throw new RealtimeError("INTERNAL_ERROR", `Unexpected reply ${reply.type}`)
        return reply.data
      } catch (error) {
        if (!(error instanceof RealtimeError) || Date.now() >= deadline) throw error
        // No ack in time on an open socket: most likely a dead connection the heartbeat has not caught yet.
        if (error.code === "TIMEOUT") connection.abandon()
        else if (error.code !== "CONNECTION_LOST") throw error
      }
    }
  }

  /**
   * Tells the client the app went to the background (React Native `AppState` "background", a hidden browser
   * tab): heartbeats stop, so the client neither wakes the radio nor judges a socket by timers the system froze.
   */
  background(): void {
    this.inBackground = true
    this.connection?.pauseHeartbeat()
  }

  /**
   * Tells the client the app is in the foreground again: an open socket is pinged at once (and replaced unless
   * the server answers within `replyTimeoutMs`), and a client waiting to reconnect reconnects now.
   */
  foreground(): void {
    if (!this.inBackground) return
    this.inBackground = false
    if (this.connection !== undefined) this.connection.resumeHeartbeat()
    else this.wakeUp?.()
  }

  /** Whether background() was called without foreground() since. */
  get isInBackground(): boolean {
    return this.inBackground
  }

  /** Closes the connection for good (until connect() is called again); pending calls reject with `CLOSED`. */
  close(): void {
    this.shutDown("CLOSED", "The realtime client was closed")
  }

  /** Closes the client and stops listening to the session; the client cannot be used again. */
  dispose(): void {
    this.close()
    this.stopListeningToSession()
  }

  private stopped(loop: number) {
    return this.runningLoop !== loop
  }

  private async run(loop: number): Promise<void> {
    let attempt = 0
    let renewedSinceLastOpen = false
    for (;;) {
      if (this.stopped(loop)) return
      const end = await this.connectOnce(loop)
      if (this.stopped(loop)) return
      if (end.kind === "fatal") {
        this.shutDown(end.code, end.reason)
        return
      }
      if (end.kind === "authenticated") {
        attempt = 0
        renewedSinceLastOpen = false
      }
      // A fresh token is tried at once, but only once in a row: a server that keeps refusing waits too.
      if (end.kind === "token-renewed" && !renewedSinceLastOpen) {
        renewedSinceLastOpen = true
        continue
      }
      this.setState("reconnecting")
      await this.sleep(backoffDelay(attempt, this.options.reconnect))
      attempt += 1
    }
  }

  /** One connection, from opening to its end. */
  private async connectOnce(loop: number): Promise<ConnectOutcome> {
    const token = await this.host.accessToken()
    if (token === undefined) return signedOut
    let WebSocket: WebSocketConstructor
    try {
      WebSocket = this.settings.WebSocket ?? (await resolveWebSocket())
    } catch (error) {
      return { kind: "fatal", code: "CLOSED", reason: (error as Error).message }
    }
    if (this.stopped(loop)) return { kind: "failed" }
    const opened = await Connection.open(
      WebSocket,
      this.url,
      { token, language: frameLanguage(this.host.language?.()) },
      {
        onMessage: (message) => this.receiveLive(message),
        onUnsolicitedError: (error) => this.events.emit("error", error),
        onUserEvent: (event) => this.events.emit("event", event)
      },
      { replyTimeoutMs: this.options.replyTimeoutMs, heartbeatIntervalMs: this.options.heartbeatIntervalMs }
    )
    if ("failed" in opened) return this.afterEnd(opened.failed, token, false)
    const { connection } = opened
    if (this.stopped(loop)) {
      connection.abandon()
      return { kind: "failed" }
    }
    this.connection = connection
    if (this.inBackground) connection.pauseHeartbeat()
    this.currentUserId = opened.userId
    this.setState("open")
    for (const waiter of this.openWaiters.splice(0)) waiter.resolve()
    for (const [conversationId, subscription] of this.subscriptions) {
      void this.subscribeOn(connection, conversationId, subscription)
    }
    const end = await connection.ended
    this.connection = undefined
    return this.afterEnd(end, token, true)
  }

  private async afterEnd(end: ConnectionEnd, token: string, wasOpen: boolean): Promise<ConnectOutcome> {
    if (end.kind !== "unauthorized") return { kind: wasOpen ? "authenticated" : "failed" }
    // The token was refused (expired, or the session ended): a fresh one, or the session is over.
    try {
      const renewed = await this.host.renewAccessToken(token)
      return renewed === undefined ? signedOut : { kind: "token-renewed" }
    } catch {
      return { kind: "failed" }
    }
  }

  /**
   * Subscribes with `since_seq`: the server sends what came after it, `caught_up`, then live messages. A
   * first subscription without `after` starts where the conversation stands (its newest message, over REST).
   */
  private async subscribeOn(connection: Connection, conversationId: string, subscription: Subscription) {
    const channel = conversationChannel(conversationId)
    let startsAt = this.log.lastSeq(conversationId)
    const resumed = startsAt !== undefined
    if (startsAt === undefined) {
      try {
        const newest = (await this.host.messagesBefore(conversationId, undefined, 1)).messages[0]
        this.emit(this.log.startAfter(conversationId, newest?.seq ?? 0))
        startsAt = this.log.lastSeq(conversationId)
      } catch (error) {
        // Live only, then: the first message delivered tells where the conversation stands.
        this.reportCatchUpFailure(conversationId, error)
      }
    }
    try {
      const reply =
        startsAt === undefined
          ? await connection.request({ type: "subscribe", channel }, { kind: "subscribe", channel })
          : await connection.request({ type: "subscribe", channel, since_seq: startsAt }, { kind: "catchUp", channel })
      if (reply.type === "caught_up" && reply.has_more) await this.fillGap(conversationId)
    } catch (error) {
      if (error instanceof RealtimeError && (error.code === "CONNECTION_LOST" || error.code === "CLOSED")) return
      this.subscriptions.delete(conversationId)
      subscription.confirmed.reject(error)
      return
    }
    if (resumed && startsAt !== undefined) {
      const count = (this.log.lastSeq(conversationId) ?? startsAt) - startsAt
      this.events.emit("caughtUp", { conversationId, count })
    }
    subscription.confirmed.resolve()
  }

  /** Fetches over REST the messages after the last one emitted until the conversation has no gap left. */
  private fillGap(conversationId: string): Promise<void> {
    const running = this.gapFills.get(conversationId)
    if (running instanceof Promise) return running
    if (running !== undefined) clearTimeout(running)
    const fill = (async () => {
      try {
        for (;;) {
          const afterSeq = this.log.lastSeq(conversationId) ?? 0
          const page = await this.host.messagesAfter(conversationId, afterSeq, this.options.catchUpPageSize)
          for (const message of page.messages) {
            this.emit(this.log.accept({ ...message, conversation_id: message.conversation_id ?? conversationId }))
          }
          if (!page.has_more || page.messages.length === 0) break
        }
        this.gapFills.delete(conversationId)
        // Messages that came out of order during the fetch: give the missing ones their moment again.
        if (this.log.hasGap(conversationId)) this.fillGapLater(conversationId)
      } catch (error) {
        this.gapFills.delete(conversationId)
        this.reportCatchUpFailure(conversationId, error)
      }
    })()
    this.gapFills.set(conversationId, fill)
    return fill
  }

  /** A message that came ahead of a missing one waits a moment for it, then the gap is fetched over REST. */
  private fillGapLater(conversationId: string) {
    if (this.gapFills.has(conversationId)) return
    const timer = setTimeout(() => {
      this.gapFills.delete(conversationId)
      if (this.log.hasGap(conversationId)) void this.fillGap(conversationId)
    }, this.options.gapTimeoutMs)
    this.gapFills.set(conversationId, timer)
  }

  private reportCatchUpFailure(conversationId: string, cause: unknown) {
    this.events.emit(
      "error",
      new RealtimeError("CATCH_UP_FAILED", `Could not fetch the missed messages of ${conversationId}`, { cause })
    )
  }

  private receiveLive(message: ChatMessage) {
    this.emit(this.log.accept(message))
    if (this.log.hasGap(message.conversation_id)) this.fillGapLater(message.conversation_id)
  }

  private emit(messages: ReadonlyArray<ChatMessage>) {
    for (const message of messages) this.events.emit("message", message)
  }

  /** The open connection, waiting until `deadline` (epoch ms) for one being (re-)established. */
  private async openConnection(deadline: number): Promise<Connection> {
    if (this.connection !== undefined && this.currentState === "open") return this.connection
    if (this.currentState === "closed" || this.currentState === "idle") {
      throw new RealtimeError("CLOSED", "The realtime client is not connected: call connect() first")
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const waiter = deferred<void>()
    this.openWaiters.push(waiter)
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RealtimeError("TIMEOUT", "The connection was not re-established in time")),
        Math.max(0, deadline - Date.now())
      )
    })
    try {
      await Promise.race([waiter.promise, timeout])
    } finally {
      clearTimeout(timer)
      const index = this.openWaiters.indexOf(waiter)
      if (index >= 0) this.openWaiters.splice(index, 1)
    }
    if (this.connection === undefined) throw new RealtimeError("CONNECTION_LOST", "The connection closed")
    return this.connection
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined
        resolve()
      }, ms)
      this.wakeUp = () => {
        clearTimeout(timer)
        this.wakeUp = undefined
        resolve()
      }
    })
  }

  private shutDown(code: "CLOSED" | "SIGNED_OUT", reason: string) {
    if (this.currentState === "closed" && this.runningLoop === undefined) return
    this.runningLoop = undefined
    this.wakeUp?.()
    this.connection?.abandon()
    this.connection = undefined
    const error = new RealtimeError(code, reason)
    for (const waiter of this.openWaiters.splice(0)) waiter.reject(error)
    for (const subscription of this.subscriptions.values()) {
      subscription.confirmed.reject(error)
      subscription.confirmed = deferred()
    }
    for (const pending of this.gapFills.values()) if (!(pending instanceof Promise)) clearTimeout(pending)
    this.gapFills.clear()
    this.setState("closed")
  }

  private setState(state: RealtimeState) {
    if (state === this.currentState) return
    this.currentState = state
    this.events.emit("state", state)
  }
}

/** The `auth` frame's `language` for a client language tag: its primary subtag when the server speaks it. */
const frameLanguage = (tag: string | undefined): "ar" | "en" | undefined => {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0]
  return primary === "ar" || primary === "en" ? primary : undefined
}
