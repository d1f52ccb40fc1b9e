import { BuyRequest, Language, MESSAGE_CLIENT_ID_MAX_LENGTH, MESSAGE_MAX_LENGTH, MessageInput } from "@talab/core"
import * as Schema from "effect/Schema"
import { SentMessage } from "../chat/Views.js"
import type { ErrorCode } from "../errors/Catalogue.js"
import { PayloadOf, SEQ_MAX, SeqField } from "../http/Fields.js"
import { OfferView, RequestView, shownAs } from "../http/Views.js"

/*
 * The WebSocket protocol of `/ws` (decisions.md section 9): every frame is one JSON text. The server decodes
 * each incoming frame with these schemas; clients can import them to build and read frames.
 */

/** The longest `message_text` of a message frame, in characters after trimming (as over REST). */
export const MESSAGE_TEXT_MAX = MESSAGE_MAX_LENGTH
/** The longest `client_id` a message frame may carry, in characters. */
export const CLIENT_ID_MAX = MESSAGE_CLIENT_ID_MAX_LENGTH
/** A frame larger than this closes the socket with 1009. */
export const MAX_FRAME_BYTES = 16 * 1024
/** Authenticated sockets one session may hold; the next one to authenticate closes the oldest with 4008. */
export const MAX_SOCKETS_PER_SESSION = 10
/** Authenticated sockets one user may hold over all sessions; past it the oldest is closed with 4008. */
export const MAX_SOCKETS_PER_USER = 50
/** Conversations one socket may be subscribed to at once; one more is refused with VALIDATION_ERROR. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100
/**
 * Messages a `subscribe` with `since_seq` sends before its `caught_up` frame; the rest is read over REST
 * (`GET /conversations/{id}/messages?after_seq=`). 50 of the longest messages stay under the 1 MiB a socket
 * may have waiting to be sent.
 */
export const CATCH_UP_MAX = 50

/** What a conversation's channel is named with: `conversation.<conversation id>`. */
export const CONVERSATION_CHANNEL_PREFIX = "conversation."
/** The channel to subscribe to for a conversation's messages. */
export const conversationChannel = (conversationId: string) => `${CONVERSATION_CHANNEL_PREFIX}${conversationId}`

/**
 * Every authenticated socket is on its user's channel from `auth_ok` on, with no subscribe: events about the user
 * (a new request matching their alert rules) arrive there as `event` frames.
 */
export const USER_CHANNEL_PREFIX = "user."
/** The user's own channel, which every socket authenticated as the user is on (`user.<user id>`). */
export const userChannel = (userId: string) => `${USER_CHANNEL_PREFIX}${userId}`

/** WebSocket close codes the server uses. */
export const CloseCode = {
  /** The server is shutting down. */
  goingAway: 1001,
  /** A frame over {@link MAX_FRAME_BYTES}. */
  messageTooBig: 1009,
  /** The session or the user opened more sockets than allowed; the oldest one goes. */
  tooManySockets: 4008,
  /** No auth in time, a bad token, or the session ended (logout). */
  unauthorized: 4401
} as const

// Client to server

/**
 * Client, first frame: authenticates the socket with an access token. Answered by `auth_ok`; a bad token (or no
 * auth within 10 s) gets an `UNAUTHORIZED` error and the socket closes with 4401.
 */
export const AuthFrame = Schema.Struct({
  type: Schema.Literal("auth"),
  token: Schema.String,
  /**
   * The language of this socket's error messages, ahead of the handshake's `Accept-Language` and the user's saved
   * language: a browser cannot set headers on a WebSocket, so a client states its language here.
   */
  language: Schema.optional(Language)
})
/**
 * Client: subscribes to a conversation's channel. Answered by `subscribed`, or an error: `FORBIDDEN` when the user
 * is not a party, `NOT_FOUND` when there is no such conversation.
 */
export const SubscribeFrame = Schema.Struct({
  type: Schema.Literal("subscribe"),
  channel: Schema.String,
  /**
   * The last seq the client has of the conversation (0: none): the messages after it are sent first, then
   * `caught_up`, then live messages, with no gap and no duplicate.
   */
  since_seq: Schema.optional(SeqField)
})
/** Client: stops the deliveries of a channel. Answered by `unsubscribed`. */
export const UnsubscribeFrame = Schema.Struct({ type: Schema.Literal("unsubscribe"), channel: Schema.String })
/**
 * Client: sends a message to a conversation, stored as POST /conversations/{id}/messages stores it. The sender gets
 * an `ack`; every socket subscribed to the conversation gets it as a `message`.
 */
export const SendMessageFrame = Schema.Struct({
  type: Schema.Literal("message"),
  conversation_id: Schema.String,
  // `client_id` is chosen by the client; sending again with the same one stores nothing new and acks the first.
  // Neither text nor attachment is refused by the gateway (core's `requireContent`) before the conversation is sought.
  ...PayloadOf(MessageInput).fields
})
/** Client: keeps the socket alive. Answered by `pong`. */
export const PingFrame = Schema.Struct({ type: Schema.Literal("ping") })

/**
 * Any frame a client may send. A frame that is not JSON, or not one of these, gets a `VALIDATION_ERROR` error and
 * the socket stays open.
 */
export const ClientFrame = Schema.Union(AuthFrame, SubscribeFrame, UnsubscribeFrame, SendMessageFrame, PingFrame)
export type ClientFrame = typeof ClientFrame.Type
/** The `type` of a client frame (`auth`, `subscribe`, …). */
export type ClientFrameType = ClientFrame["type"]
/** Every client frame `type`, to tell a frame of an unknown type from a malformed frame of a known one. */
export const clientFrameTypes: ReadonlyArray<ClientFrameType> = ["auth", "subscribe", "unsubscribe", "message", "ping"]

// Server to client

/** Server: the socket is authenticated as `user_id`, and on the user's channel from now on. */
export const AuthOkFrame = Schema.Struct({ type: Schema.Literal("auth_ok"), user_id: Schema.UUID })
/**
 * Server: the subscribe to `channel` succeeded; its messages follow (after the catch-up when `since_seq` was given).
 */
export const SubscribedFrame = Schema.Struct({ type: Schema.Literal("subscribed"), channel: Schema.String })
/** Server: the unsubscribe from `channel` is done; none of its messages follow. */
export const UnsubscribedFrame = Schema.Struct({ type: Schema.Literal("unsubscribed"), channel: Schema.String })
/** Server: a message stored in a subscribed conversation, whichever party sent it and however (socket or REST). */
export const MessageFrame = Schema.Struct({ type: Schema.Literal("message"), data: SentMessage })
/** Server, to the sender of a message frame: the message as stored, with the frame's `client_id` (null without one). */
export const AckFrame = Schema.Struct({
  type: Schema.Literal("ack"),
  client_id: Schema.NullOr(Schema.String),
  data: SentMessage
})
/** Server, after a subscribe with `since_seq`: the missed messages have been sent; live messages follow. */
export const CaughtUpFrame = Schema.Struct({
  type: Schema.Literal("caught_up"),
  channel: Schema.String,
  /** The seq of the last message the catch-up sent (`since_seq` when it sent none). */
  last_seq: Schema.Int.pipe(Schema.between(0, SEQ_MAX)),
  /**
   * True when more than {@link CATCH_UP_MAX} messages were missed: those after `last_seq` were not sent, fetch
   * them with `GET /conversations/{id}/messages?after_seq=<last_seq>`. Live messages follow either way.
   */
  has_more: Schema.Boolean
})
/**
 * The code of an `error` frame: `UNAUTHORIZED` (no auth yet, or a bad token), `VALIDATION_ERROR` (a malformed frame,
 * an unknown type, too many subscriptions), `FORBIDDEN` (not a party of the conversation), `NOT_FOUND` (no such
 * conversation), `SELLER_NOT_APPROVED` (a suspended or rejected seller's message in the conversation of an offer
 * that is not accepted: nothing stored), `RATE_LIMITED` (too many frames: this one is dropped), `INTERNAL_ERROR`
 * (the server failed).
 */
export const ErrorFrameCode = Schema.Literal(
  ...([
    "UNAUTHORIZED",
    "VALIDATION_ERROR",
    "FORBIDDEN",
    "NOT_FOUND",
    "SELLER_NOT_APPROVED",
    "RATE_LIMITED",
    "INTERNAL_ERROR"
  ] as const satisfies ReadonlyArray<ErrorCode>)
)
export type ErrorFrameCode = typeof ErrorFrameCode.Type
/**
 * Server: a frame was refused, with its code and a message in the user's language. The socket stays open, but
 * after a bad or missing auth, when it closes with 4401.
 */
export const ErrorFrame = Schema.Struct({
  type: Schema.Literal("error"),
  code: ErrorFrameCode,
  /**
   * In the socket's language: the `auth` frame's `language`, then the handshake's `Accept-Language`, then the
   * user's saved language, then Arabic.
   */
  message: Schema.String,
  /** Field problems of a frame that failed validation, as in the REST envelope's `error.details`. */
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
  /** The `client_id` of the message frame that failed, when it had one. */
  client_id: Schema.optional(Schema.String),
  /** The channel of the subscribe or unsubscribe frame that failed. */
  channel: Schema.optional(Schema.String)
})
/** Server: the answer to a `ping`. */
export const PongFrame = Schema.Struct({ type: Schema.Literal("pong") })

/** A new request matched one of the seller's alert rules: what the request list shows of it, its id as `request_id`. */
export const RequestMatchEventData = Schema.Struct({
  id: shownAs("request_id", BuyRequest.fields.id),
  ...RequestView.pick(
    "category",
    "productBrand",
    "productModel",
    "budgetMin",
    "budgetMax",
    "locationCity",
    "locationDistrict"
  ).fields,
  // Documented as a bare string, as the event always was (a view's date adds "a string to be decoded into a Date").
  createdAt: shownAs("created_at", Schema.Date.annotations({ jsonSchema: { type: "string" } }))
})
export type RequestMatchEventData = typeof RequestMatchEventData.Type

/**
 * A seller made an offer on one of the buyer's requests: the offer's own fields, its id as `offer_id`; the request's
 * offers (GET /requests/{id}/offers) show it with the seller's name, rating and trust.
 */
export const OfferCreatedEventData = Schema.Struct({
  id: shownAs("offer_id", OfferView.fields.id),
  ...OfferView.pick("requestId", "sellerId", "price").fields,
  createdAt: shownAs("created_at", Schema.Date.annotations({ jsonSchema: { type: "string" } }))
})
export type OfferCreatedEventData = typeof OfferCreatedEventData.Type

const RequestMatchEvent = Schema.Struct({ event: Schema.Literal("request_match"), data: RequestMatchEventData })
const OfferCreatedEvent = Schema.Struct({ event: Schema.Literal("offer_created"), data: OfferCreatedEventData })

/** An event on the socket's user channel (`user.<user id>`). */
export const UserEventFrame = Schema.Union(
  Schema.Struct({ type: Schema.Literal("event"), channel: Schema.String, ...RequestMatchEvent.fields }),
  Schema.Struct({ type: Schema.Literal("event"), channel: Schema.String, ...OfferCreatedEvent.fields })
)
export type UserEventFrame = typeof UserEventFrame.Type
/** A user event as carried between instances: the frame without its channel, which names each recipient. */
export const UserEvent = Schema.Union(RequestMatchEvent, OfferCreatedEvent)
export type UserEvent = typeof UserEvent.Type

/** Any frame the server sends. */
export const ServerFrame = Schema.Union(
  AuthOkFrame,
  SubscribedFrame,
  UnsubscribedFrame,
  MessageFrame,
  AckFrame,
  CaughtUpFrame,
  ErrorFrame,
  PongFrame,
  UserEventFrame
)
export type ServerFrame = typeof ServerFrame.Type
