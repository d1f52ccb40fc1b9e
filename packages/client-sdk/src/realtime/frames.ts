import type { components } from "../generated/frames.js"

/*
 * The frames are generated from the schemas the server decodes and encodes them with (src/generated/frames.ts,
 * by `pnpm generate`, checked in CI by `generate:check`), so they cannot drift from the server.
 */
type Frames = components["schemas"]

/** Frames the client sends. */
export type ClientFrame = Frames["ClientFrame"]

/** Frames the server sends. */
export type ServerFrame = Frames["ServerFrame"]

/**
 * A chat message as the WebSocket delivers it (decisions.md section 9): `seq` is 1, 2, 3, … within the
 * conversation, with no gaps; `masked` is true when phone numbers, e-mail addresses or links in `message_text` were
 * replaced by `***` for this reader (the recipient sees them masked until the offer is accepted).
 */
export type ChatMessage = Frames["MessageFrame"]["data"]

/**
 * What a message is: `text` written by its sender, or posted by a bargaining move on the conversation's offer,
 * `counter` (the buyer proposed a price) or `revision` (the seller revised the offer), the price in its text.
 */
export type MessageKind = ChatMessage["kind"]

/** A push notification as FCM or APNs deliver it: title and body in the recipient's language, and its `data`. */
export type PushPayload = Frames["Push"]

/**
 * What a push is about (`data.type`): `offer_created`, `offer_accepted`, `offer_countered`, `offer_revised`,
 * `message`, `rating_prompt`, `request_match`, `request_match_summary`, `request_expiring`, `request_expired`.
 */
export type PushType = PushPayload["data"]["type"]

/** An event on the user's own channel `user.<user id>`, which every authenticated socket is on. */
export type UserEvent = Frames["EventFrame"]

/** A new request matched one of the seller's alert rules (`event: "request_match"` on the user channel). */
export type RequestMatch = Extract<UserEvent, { event: "request_match" }>["data"]

/** A seller made an offer on one of the buyer's requests (`event: "offer_created"` on the user channel). */
export type OfferCreated = Extract<UserEvent, { event: "offer_created" }>["data"]

/** Every type of server frame, once: the compiler refuses a type the generated union lacks, or one left out. */
const SERVER_FRAME_TYPES: Record<ServerFrame["type"], true> = {
  auth_ok: true,
  subscribed: true,
  unsubscribed: true,
  message: true,
  ack: true,
  caught_up: true,
  error: true,
  pong: true,
  event: true
}
const FRAME_TYPES: ReadonlySet<string> = new Set(Object.keys(SERVER_FRAME_TYPES))

/** Reads a server frame; undefined for anything that is not one (ignored, like unknown frame types). */
export const parseServerFrame = (text: string): ServerFrame | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  const type = (value as { type?: unknown }).type
  return typeof type === "string" && FRAME_TYPES.has(type) ? (value as ServerFrame) : undefined
}

/** The channel of a conversation's messages. */
export const conversationChannel = (conversationId: string) => `conversation.${conversationId}`
