import { Conversation, Message, snakeCaseKeys } from "@talab/core"
import * as Schema from "effect/Schema"
import { DeletedFlag, entityView, shownAs, UserView } from "../http/Views.js"
import { Photos } from "../images/View.js"

/** Whether the text had contact details masked for the reader (recipient, before the offer is accepted). */
const Masked = Schema.Boolean.annotations({
  description:
    "True when phone numbers, e-mail addresses, links or handles in the text (or the part of a number split over the sender's messages that is in it) were replaced by *** for you: the recipient sees them masked until the offer is accepted. The sender always sees their own text."
})

const MessageView = entityView(Message.fields)
const ConversationView = entityView(Conversation.fields)

/** How many of the other party's messages the caller has not read. */
export const UnreadCount = snakeCaseKeys({ unreadCount: Schema.Int })

/** A message as the send response and the WebSocket deliver it. */
export const SentMessage = Schema.Struct({
  ...MessageView.pick("id", "conversationId", "seq", "senderId", "kind", "messageText").fields,
  masked: Masked,
  attachments: Photos.annotations({
    description: "The message's photos, in order; empty when it has none (its text may then be empty)"
  }),
  ...MessageView.pick("createdAt").fields
})
export type SentMessage = typeof SentMessage.Type

/** A message in a conversation's history, with when its recipient read it. */
export const MessageItem = Schema.Struct({
  ...SentMessage.fields,
  ...MessageView.pick("readAt").fields
})
export type MessageItem = typeof MessageItem.Type

/** The newest message of a conversation, as its list shows it. */
const LastMessage = Schema.Struct({
  messageText: shownAs("text", Message.fields.messageText),
  masked: Masked,
  // The list's documentation shows seq undescribed (an `Int` reference), as it always has.
  seq: Schema.Int,
  ...MessageView.pick("createdAt").fields
})

/** A conversation in the caller's list, seen from the caller's side. */
export const ConversationSummary = Schema.Struct({
  ...ConversationView.pick("id", "offerId").fields,
  ...snakeCaseKeys({
    otherParty: Schema.Struct({ ...UserView.pick("id", "name", "avatarUrl").fields, ...DeletedFlag.fields }),
    lastMessage: Schema.NullOr(LastMessage)
  }).fields,
  ...UnreadCount.fields,
  ...ConversationView.pick("createdAt").fields
})
export type ConversationSummary = typeof ConversationSummary.Type
