import type { MessageItem, SentMessage } from "@talab/contract"
import { type Message, maskContacts } from "@talab/core"

export const sentMessage = (message: Message): SentMessage => ({
  id: message.id,
  conversation_id: message.conversationId,
  seq: message.seq,
  sender_id: message.senderId,
  message_text: message.messageText,
  masked: false,
  created_at: message.createdAt
})

/** A history item as the send response and the WebSocket show a message (without `read_at`). */
export const sentMessageOf = (item: MessageItem): SentMessage => ({
  id: item.id,
  conversation_id: item.conversation_id,
  seq: item.seq,
  sender_id: item.sender_id,
  message_text: item.message_text,
  masked: item.masked,
  created_at: item.created_at
})

/**
 * A message's text as `viewerId` may read it: as written for its sender, and once the offer is accepted
 * (`contactsShown`); otherwise with contact details masked.
 */
export const textFor = (
  message: { readonly sender_id: string; readonly message_text: string },
  viewerId: string,
  contactsShown: boolean
) =>
  message.sender_id === viewerId || contactsShown
    ? { message_text: message.message_text, masked: false }
    : (({ masked, text }) => ({ message_text: text, masked }))(maskContacts(message.message_text))

/** `message` as `viewerId` may read it (see `textFor`). */
export const shownTo = <M extends SentMessage>(message: M, viewerId: string, contactsShown: boolean): M => ({
  ...message,
  ...textFor(message, viewerId, contactsShown)
})
