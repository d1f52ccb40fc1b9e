import {
  CATCH_UP_MAX,
  CloseCode,
  MAX_SUBSCRIPTIONS_PER_SOCKET,
  type SendMessageFrame,
  type SubscribeFrame
} from "@talab/contract"
import {
  type Conversation,
  type Forbidden,
  type NotFound,
  RateLimiter,
  requireContent,
  type SellerNotApproved,
  type ValidationFailed
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import type { WebSocket } from "ws"
import { makeSessionCheck } from "../auth/SessionCheck.js"
import { ChatService } from "../chat/Service.js"
import { sentMessageOf } from "../chat/Views.js"
import { AppConfig } from "../config/AppConfig.js"
import { consumeApiBudget } from "../http/ApiRateLimit.js"
import { recordWebSocketClose } from "../telemetry/Metrics.js"
import { Connection } from "./Connection.js"
import { conversationOfChannel, type DecodedFrame, decodeClientFrame, isConversationId } from "./Frames.js"
import { RealtimeHub } from "./Hub.js"

/*
 * Frames of one socket are handled one at a time, in order (a subscribe is done before the message sent
 * after it). A client that sends faster than that is read from no further until its backlog drains.
 */
const INBOX_HIGH_WATER = 64
const INBOX_LOW_WATER = 16
const MESSAGE_WINDOW_MS = 60_000

const isAuthFrame = (decoded: DecodedFrame) =>
  (decoded._tag === "Frame" && decoded.frame.type === "auth") || (decoded._tag === "Invalid" && decoded.type === "auth")

/** One span per incoming frame, a root of its own: a socket lives for hours, and so would a trace of its frames. */
const traceFrame =
  (connection: Connection, text: string | undefined) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.withSpan(effect, "ws.frame", {
      kind: "server",
      root: true,
      attributes: {
        "ws.frame.type": frameTypeOf(text),
        ...(connection.identity ? { "enduser.id": connection.identity.userId } : {})
      }
    })

/** A frame's `type`, when it is one of the protocol's (a client's own string must not become an attribute). */
const frameTypeOf = (text: string | undefined) => {
  const type = text === undefined ? undefined : /"type"\s*:\s*"([a-z_]{1,20})"/.exec(text)?.[1]
  return type !== undefined && CLIENT_FRAME_TYPES.has(type) ? type : "invalid"
}
const CLIENT_FRAME_TYPES = new Set(["auth", "ping", "subscribe", "unsubscribe", "message"])

/** The `/ws` protocol (decisions.md section 9) over the same application services as REST. */
export class Gateway extends Effect.Service<Gateway>()("Realtime/Gateway", {
  scoped: Effect.gen(function* () {
    const hub = yield* RealtimeHub
    const chat = yield* ChatService
    const checkSession = yield* makeSessionCheck
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const tracing = config.telemetry.otlpEndpoint !== undefined

    const authenticate = (connection: Connection, token: string) =>
      Effect.gen(function* () {
        const signedIn = yield* checkSession(token, (claims) => hub.bindSession(connection, claims.sessionId))
        if (Option.isNone(signedIn)) return connection.reject()
        const { session, user } = signedIn.value
        connection.authenticate(
          { userId: user.id, sessionId: session.id, sessionExpiresAt: session.expiresAt.getTime() },
          user.language
        )
        connection.send({ type: "auth_ok", user_id: user.id })
        yield* hub.admit(connection)
      })

    const refuse = (
      connection: Connection,
      error: NotFound | Forbidden | ValidationFailed | SellerNotApproved,
      extra: { readonly clientId?: string | undefined; readonly channel?: string | undefined }
    ) =>
      Effect.sync(() => {
        switch (error._tag) {
          case "NotFound":
            return connection.sendError("NOT_FOUND", extra)
          case "Forbidden":
            return connection.sendError("FORBIDDEN", extra)
          case "SellerNotApproved":
            return connection.sendError("SELLER_NOT_APPROVED", extra)
          case "ValidationFailed":
            return connection.sendError("VALIDATION_ERROR", { ...extra, fields: error.details })
        }
      })

    /** Subscribe and unsubscribe frames cost what a REST call does: they share the user's `api:` budget. */
    const withinApiBudget = (userId: string) =>
      Effect.map(consumeApiBudget(limiter, config, userId), (decision) => decision.allowed)

    /*
     * Resuming from `since_seq` without a gap or a duplicate: live frames of the conversation are held from
     * before the subscription is registered (so none is missed while the fan-out starts watching), the missed
     * messages are read after it is (so a message stored later is delivered live), and the held frames go out
     * after the catch-up, those it sent already dropped (Connection.releaseLive).
     */
    const catchUp = (
      connection: Connection,
      userId: string,
      conversation: Conversation,
      channel: string,
      sinceSeq: number
    ) =>
      chat.messagesAfter(userId, conversation, sinceSeq, CATCH_UP_MAX).pipe(
        Effect.flatMap(({ hasMore, messages }) =>
          Effect.sync(() => {
            for (const message of messages) connection.send({ type: "message", data: sentMessageOf(message) })
            const lastSeq = messages.at(-1)?.seq ?? sinceSeq
            connection.send({ type: "caught_up", channel, last_seq: lastSeq, has_more: hasMore })
            connection.releaseLive(conversation.id, lastSeq)
          })
        ),
        Effect.onError(() => Effect.sync(() => connection.releaseLive(conversation.id, sinceSeq)))
      )

    const subscribe = (connection: Connection, userId: string, frame: typeof SubscribeFrame.Type) =>
      Effect.gen(function* () {
        const { channel, since_seq: sinceSeq } = frame
        const target = conversationOfChannel(channel)
        if (target._tag === "NotAConversation") return connection.sendError("VALIDATION_ERROR", { channel })
        if (
          (target._tag === "UnknownConversation" || !connection.subscriptions.has(target.conversationId)) &&
          connection.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET
        ) {
          return connection.sendError("VALIDATION_ERROR", {
            channel,
            fields: { channel: [{ key: "too_many_subscriptions", params: { max: MAX_SUBSCRIPTIONS_PER_SOCKET } }] }
          })
        }
        if (target._tag === "UnknownConversation") return connection.sendError("NOT_FOUND", { channel })
        const conversation = yield* chat.conversationOf(userId, target.conversationId)
        if (sinceSeq !== undefined) connection.holdLive(conversation.id)
        const watching = yield* Effect.either(hub.subscribe(connection, conversation.id))
        if (watching._tag === "Left") {
          connection.forgetCatchUp(conversation.id)
          return connection.sendError("INTERNAL_ERROR", { channel })
        }
        connection.send({ type: "subscribed", channel })
        if (sinceSeq !== undefined) yield* catchUp(connection, userId, conversation, channel, sinceSeq)
      }).pipe(Effect.catchAll((error) => refuse(connection, error, { channel: frame.channel })))

    const unsubscribe = (connection: Connection, channel: string) =>
      Effect.gen(function* () {
        const target = conversationOfChannel(channel)
        if (target._tag === "NotAConversation") return connection.sendError("VALIDATION_ERROR", { channel })
        // A conversation that does not exist was never subscribed to: unsubscribing from it changes nothing.
        if (target._tag === "Conversation") yield* hub.unsubscribe(connection, target.conversationId)
        connection.send({ type: "unsubscribed", channel })
      })

    const withinMessageBudget = (userId: string) =>
      Effect.map(
        limiter.consume({
          key: `ws-messages:${userId}`,
          limit: config.rateLimits.wsMessagesPerMinute,
          windowMs: MESSAGE_WINDOW_MS
        }),
        (decision) => decision.allowed
      )

    const sendMessage = (connection: Connection, userId: string, frame: typeof SendMessageFrame.Type) =>
      Effect.gen(function* () {
        const clientId = frame.clientId
        if (!(yield* withinMessageBudget(userId))) return connection.sendError("RATE_LIMITED", { clientId })
        // A frame that says nothing is refused as a bad frame, before its conversation is sought.
        const content = yield* Effect.either(requireContent(frame))
        if (Either.isLeft(content)) return yield* refuse(connection, content.left, { clientId })
        if (!isConversationId(frame.conversation_id)) return connection.sendError("NOT_FOUND", { clientId })
        yield* chat
          .sendMessage(userId, frame.conversation_id, frame, {
            onStored: (message) =>
              Effect.sync(() => connection.send({ type: "ack", client_id: clientId ?? null, data: message }))
          })
          .pipe(Effect.catchAll((error) => refuse(connection, error, { clientId })))
      })

    const handle = (connection: Connection, text: string | undefined): Effect.Effect<void> => {
      const decoded: DecodedFrame = text === undefined ? { _tag: "NotJson" } : decodeClientFrame(text)
      const identity = connection.identity
      if (identity === undefined) {
        if (!isAuthFrame(decoded)) return Effect.sync(() => connection.sendError("UNAUTHORIZED"))
        if (decoded._tag !== "Frame" || decoded.frame.type !== "auth") return Effect.sync(() => connection.reject())
        const { token, language } = decoded.frame
        return Effect.suspend(() => {
          connection.chooseLanguage(language)
          return authenticate(connection, token)
        })
      }
      switch (decoded._tag) {
        case "NotJson":
        case "UnknownType":
          return Effect.sync(() => connection.sendError("VALIDATION_ERROR"))
        case "Invalid":
          return Effect.gen(function* () {
            if (decoded.type === "message" && !(yield* withinMessageBudget(identity.userId))) {
              return connection.sendError("RATE_LIMITED", { clientId: decoded.clientId })
            }
            if (
              (decoded.type === "subscribe" || decoded.type === "unsubscribe") &&
              !(yield* withinApiBudget(identity.userId))
            ) {
              return connection.sendError("RATE_LIMITED")
            }
            connection.sendError("VALIDATION_ERROR", { fields: decoded.fields, clientId: decoded.clientId })
          })
        case "Frame": {
          const { frame } = decoded
          switch (frame.type) {
            case "auth":
              return Effect.sync(() =>
                connection.sendError("VALIDATION_ERROR", { fields: { type: [{ key: "already_authenticated" }] } })
              )
            case "ping":
              return Effect.sync(() => connection.send({ type: "pong" }))
            case "subscribe":
            case "unsubscribe":
              return Effect.flatMap(withinApiBudget(identity.userId), (allowed) => {
                if (!allowed) return Effect.sync(() => connection.sendError("RATE_LIMITED", { channel: frame.channel }))
                return frame.type === "subscribe"
                  ? subscribe(connection, identity.userId, frame)
                  : unsubscribe(connection, frame.channel)
              })
            case "message":
              return sendMessage(connection, identity.userId, frame)
          }
        }
      }
    }

    /** A defect while handling one frame is that frame's INTERNAL_ERROR; the socket carries on. */
    const handleSafely = (connection: Connection, text: string | undefined) =>
      handle(connection, text).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.zipRight(
            Effect.logError("Realtime: a frame failed").pipe(Effect.annotateLogs({ defect: String(defect) })),
            Effect.sync(() => connection.sendError("INTERNAL_ERROR"))
          )
        ),
        tracing ? traceFrame(connection, text) : identity,
        Effect.uninterruptible
      )

    const runFork = yield* FiberSet.makeRuntime<never>()
    /** Sockets being served: each until it has closed, its last frame has been handled and the hub has forgotten it. */
    const served = new Set<Connection>()
    let stopping = false
    let allEnded: (() => void) | undefined
    const ended = (connection: Connection) => {
      served.delete(connection)
      if (served.size === 0) allEnded?.()
    }
    /*
     * Shutdown: every socket is told the server is going away, and the gateway stops once each has closed and
     * been detached (its frame being handled finishes first, so it cannot file the socket anywhere after).
     * Added after the fiber set, so run before it closes: the detaching fibers still run.
     */
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        stopping = true
        if (served.size === 0) return resume(Effect.void)
        allEnded = () => resume(Effect.void)
        for (const connection of served) connection.close(CloseCode.goingAway, "server shutting down")
      })
    )

    const serveSocket = (ws: WebSocket, acceptLanguage: string | undefined) =>
      Effect.gen(function* () {
        const connection = new Connection(ws, yield* Clock.currentTimeMillis, acceptLanguage)
        if (stopping) return connection.close(CloseCode.goingAway, "server shutting down")
        if (ws.readyState === ws.CLOSED) return
        const inbox: Array<string | undefined> = []
        let handling: Fiber.RuntimeFiber<void> | undefined
        let open = true
        const detach = () => runFork(hub.detach(connection)).addObserver(() => ended(connection))
        const handleNext = () => {
          if (handling !== undefined) return
          // Closed: frames not started yet were dropped (nobody is left to answer), and the socket is forgotten.
          if (!open) return detach()
          if (inbox.length === 0) return
          handling = runFork(handleSafely(connection, inbox.shift()))
          handling.addObserver(() => {
            handling = undefined
            if (ws.isPaused && inbox.length <= INBOX_LOW_WATER) ws.resume()
            handleNext()
          })
        }
        served.add(connection)
        yield* hub.attach(connection)
        ws.on("message", (data, isBinary) => {
          connection.markAlive()
          inbox.push(isBinary ? undefined : data.toString())
          if (inbox.length >= INBOX_HIGH_WATER) ws.pause()
          handleNext()
        })
        ws.on("close", () => {
          open = false
          inbox.length = 0
          handleNext()
        })
      })

    /**
     * Takes an open socket over until it closes, and returns at once: the socket lives on in `ws` callbacks, its
     * frames waiting in a plain array, each handled in a short fiber of the gateway's own, one after the other.
     * An idle socket holds no fiber, no queue and nothing of the request that opened it: idle sockets are most of
     * them, so they must cost little. Its listeners are set before this returns (a fiber started here runs at once,
     * and this one never waits), so called in the handshake's callback nothing the client sends can come first.
     */
    const serve = (ws: WebSocket, acceptLanguage: string | undefined): void => {
      ws.once("close", recordWebSocketClose)
      runFork(serveSocket(ws, acceptLanguage))
    }

    return { serve } as const
  })
}) {}
