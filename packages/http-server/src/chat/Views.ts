import type { MessageItem, SentMessage } from "@talab/contract"
import { type ChatLine, type Message, maskContactsAmong, neighboursOf, SPREAD_SEQS } from "@talab/core"

/** A stored message as the send response and the WebSocket show it, before it is shown to a reader. */
export const sentMessage = (
  { clientId: _clientId, readAt: _readAt, ...message }: Message,
  attachments: SentMessage["attachments"] = []
): SentMessage => ({
  ...message,
  masked: false,
  attachments
})

/** A history item as the send response and the WebSocket show a message (without `readAt`). */
export const sentMessageOf = ({ readAt: _readAt, ...message }: MessageItem): SentMessage => message

/** The texts of the sender's messages read with one (core's `neighboursOf`), so a number split over them is found. */
export interface Around {
  readonly before: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
}

export const ALONE: Around = { before: [], after: [] }

/**
 * The sender's messages around the message of `seq`, from `lines` (messages of its conversation by seq, which
 * may reach further than SPREAD_SEQS from it: those are not read with it).
 */
export const aroundIn = (lines: ReadonlyArray<ChatLine>, seq: number): Around => {
  const window = lines.filter((line) => Math.abs(line.seq - seq) <= SPREAD_SEQS)
  const index = window.findIndex((line) => line.seq === seq)
  return index === -1 ? ALONE : neighboursOf(window, index)
}

/**
 * A message's text as `viewerId` may read it: as written for its sender, and once the offer is accepted
 * (`contactsShown`); otherwise with contact details masked, those spread over the sender's messages `around`
 * it included.
 */
export const textFor = (
  message: Pick<Message, "senderId" | "messageText">,
  viewerId: string,
  contactsShown: boolean,
  around: Around = ALONE
) =>
  message.senderId === viewerId || contactsShown
    ? { messageText: message.messageText, masked: false }
    : (({ masked, text }) => ({ messageText: text, masked }))(
        maskContactsAmong(message.messageText, around.before, around.after)
      )

/** `message` as `viewerId` may read it (see `textFor`). */
export const shownTo = <M extends SentMessage>(
  message: M,
  viewerId: string,
  contactsShown: boolean,
  around: Around = ALONE
): M => ({
  ...message,
  ...textFor(message, viewerId, contactsShown, around)
})
