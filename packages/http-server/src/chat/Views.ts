import type { Message } from "@talab/core"
import { Schema } from "effect"

/** A message as the send response and the WebSocket deliver it. */
export const SentMessage = Schema.Struct({
  id: Schema.UUID,
  conversation_id: Schema.UUID,
  seq: Schema.Int.annotations({ description: "1, 2, 3, … within the conversation, in storing order, with no gaps" }),
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
  last_message: Schema.NullOr(Schema.Struct({ text: Schema.String, seq: Schema.Int, created_at: Schema.Date })),
  unread_count: Schema.Int,
  created_at: Schema.Date
})
export type ConversationSummary = typeof ConversationSummary.Type

export const sentMessage = (message: Message): SentMessage => ({
  id: message.id,
  conversation_id: message.conversationId,
  seq: message.seq,
  sender_id: message.senderId,
  message_text: message.messageText,
  created_at: message.createdAt
})

/** A history item as the send response and the WebSocket show a message (without `read_at`). */
export const sentMessageOf = (item: MessageItem): SentMessage => ({
  id: item.id,
  conversation_id: item.conversation_id,
  seq: item.seq,
  sender_id: item.sender_id,
  message_text: item.message_text,
  created_at: item.created_at
})
