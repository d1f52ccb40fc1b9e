import * as Schema from "effect/Schema"

/** Whether the text had contact details masked for the reader (recipient, before the offer is accepted). */
const Masked = Schema.Boolean.annotations({
  description:
    "True when phone numbers, e-mail addresses or links in the text were replaced by *** for you: the recipient sees them masked until the offer is accepted. The sender always sees their own text."
})

/** A message as the send response and the WebSocket deliver it. */
export const SentMessage = Schema.Struct({
  id: Schema.UUID,
  conversation_id: Schema.UUID,
  seq: Schema.Int.annotations({ description: "1, 2, 3, … within the conversation, in storing order, with no gaps" }),
  sender_id: Schema.UUID,
  message_text: Schema.String,
  masked: Masked,
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
  last_message: Schema.NullOr(
    Schema.Struct({ text: Schema.String, masked: Masked, seq: Schema.Int, created_at: Schema.Date })
  ),
  unread_count: Schema.Int,
  created_at: Schema.Date
})
export type ConversationSummary = typeof ConversationSummary.Type
