import type { MessageItem, SentMessage } from "@talab/contract"
import { type Message, maskContacts } from "@talab/core"

/** A stored message as the send response and the WebSocket show it, before it is shown to a reader. */
export const sentMessage = ({ clientId: _clientId, readAt: _readAt, ...message }: Message): SentMessage => ({
  ...message,
  masked: false
})

/** A history item as the send response and the WebSocket show a message (without `readAt`). */
export const sentMessageOf = ({ readAt: _readAt, ...message }: MessageItem): SentMessage => message

/**
 * A message's text as `viewerId` may read it: as written for its sender, and once the offer is accepted
 * (`contactsShown`); otherwise with contact details masked.
 */
export const textFor = (
  message: Pick<Message, "senderId" | "messageText">,
  viewerId: string,
  contactsShown: boolean
) =>
  message.senderId === viewerId || contactsShown
    ? { messageText: message.messageText, masked: false }
    : (({ masked, text }) => ({ messageText: text, masked }))(maskContacts(message.messageText))

/** `message` as `viewerId` may read it (see `textFor`). */
export const shownTo = <M extends SentMessage>(message: M, viewerId: string, contactsShown: boolean): M => ({
  ...message,
  ...textFor(message, viewerId, contactsShown)
})
