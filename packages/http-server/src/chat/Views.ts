import type { Message } from "@talab/core"
import { Schema } from "effect"

/** A message as the send response and the WebSocket deliver it. */
export const SentMessage = Schema.Struct({
  id: Schema.UUID,
  conversation_id: Schema.UUID,
  sender_id: Schema.UUID,
  message_text: Schema.String,
  created_at: Schema.Date
})
export type SentMessage = typeof SentMessage.Type

/** A message in a conversation's history, with when its recipient read it. */
export const MessageItem = Schema.Struct({
  ...SentMessage.fields,
  read_at: Schema.NullOr(Schema.Date)
})
export type MessageItem = typeof MessageItem.Type

/** A conversation in the caller's list, seen from the caller's side. */
export const ConversationSummary = Schema.Struct({
  id: Schema.UUID,
  offer_id: Schema.UUID,
  other_party: Schema.Struct({
    id: Schema.UUID,
    name: Schema.NullOr(Schema.String),
    avatar_url: Schema.NullOr(Schema.String)
  }),
  last_message: Schema.NullOr(Schema.Struct({ text: Schema.String, created_at: Schema.Date })),
  unread_count: Schema.Int,
  created_at: Schema.Date
})
export type ConversationSummary = typeof ConversationSummary.Type

export const sentMessage = (message: Message): SentMessage => ({
  id: message.id,
  conversation_id: message.conversationId,
  sender_id: message.senderId,
  message_text: message.messageText,
  created_at: message.createdAt
})
