/** A chat message as the WebSocket delivers it (decisions.md section 9). */
export interface ChatMessage {
  readonly id: string
  readonly conversation_id: string
  /** 1, 2, 3, … within the conversation, in the order the server stored the messages, with no gaps. */
  readonly seq: number
  readonly sender_id: string
  readonly message_text: string
  /**
   * True when phone numbers, e-mail addresses or links in `message_text` were replaced by `***` for this
   * reader: the recipient sees them masked until the offer is accepted; the sender always sees their text.
   */
  readonly masked: boolean
  readonly created_at: string
  /** Present on messages caught up over REST. */
  readonly read_at?: string | null
}

/** A new request matched one of the seller's alert rules (`event: "request_match"` on the user channel). */
export interface RequestMatch {
  readonly request_id: string
  readonly category: "phone" | "accessory"
  readonly product_brand: string | null
  readonly product_model: string | null
  readonly budget_min: number
  readonly budget_max: number
  readonly location_city: string | null
  readonly location_district: string
  readonly created_at: string
}

/** An event on the user's own channel `user.<user id>`, which every authenticated socket is on. */
export interface UserEvent {
  readonly type: "event"
  readonly channel: string
  readonly event: "request_match"
  readonly data: RequestMatch
}

/** Frames the client sends. */
export type ClientFrame =
  | { readonly type: "auth"; readonly token: string }
  | {
      readonly type: "subscribe"
      readonly channel: string
      /** The last seq the client has: the server sends the messages after it, then `caught_up`. */
      readonly since_seq?: number
    }
  | { readonly type: "unsubscribe"; readonly channel: string }
  | {
      readonly type: "message"
      readonly conversation_id: string
      readonly message_text: string
      readonly client_id: string
    }
  | { readonly type: "ping" }

/** Frames the server sends. */
export type ServerFrame =
  | { readonly type: "auth_ok"; readonly user_id: string }
  | { readonly type: "subscribed"; readonly channel: string }
  | { readonly type: "unsubscribed"; readonly channel: string }
  | { readonly type: "message"; readonly data: ChatMessage }
  | { readonly type: "ack"; readonly client_id: string; readonly data: ChatMessage }
  | {
      readonly type: "caught_up"
      readonly channel: string
      /** The last message the catch-up of a `subscribe` with `since_seq` sent (`since_seq` when none). */
      readonly last_seq: number
      /** More were missed than the server sends at once: fetch those after `last_seq` over REST. */
      readonly has_more: boolean
    }
  | {
      readonly type: "error"
      readonly code: string
      readonly message: string
      /** Echoed by servers that tie an error to the message frame that caused it. */
      readonly client_id?: string
      readonly channel?: string
    }
  | { readonly type: "pong" }
  | UserEvent

const FRAME_TYPES = new Set([
  "auth_ok",
  "subscribed",
  "unsubscribed",
  "message",
  "ack",
  "caught_up",
  "error",
  "pong",
  "event"
])

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
