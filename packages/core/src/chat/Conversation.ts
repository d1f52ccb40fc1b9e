import * as Schema from "effect/Schema"
import type { OfferStatus } from "../offers/Offer.js"

/** The one-to-one chat between the buyer of a request and the seller of an offer on it. */
export const Conversation = Schema.Struct({
  id: Schema.UUID,
  offerId: Schema.UUID,
  buyerId: Schema.UUID,
  sellerId: Schema.UUID,
  createdAt: Schema.DateFromSelf,
  lastMessageAt: Schema.NullOr(Schema.DateFromSelf)
})
export interface Conversation extends Schema.Schema.Type<typeof Conversation> {}

/** A conversation read for update, with the status its offer had at that moment. */
export interface LockedConversation extends Conversation {
  readonly offerStatus: OfferStatus
}

/** The parties of a conversation see each other's contact details once its offer is accepted (docs/DECISIONS.md). */
export const contactsShownAt = (offerStatus: OfferStatus) => offerStatus === "accepted"

/**
 * The kind of a message: `text` written by a party, or posted in the party's name by a counter (the buyer's) or a
 * revision (the seller's) of the conversation's offer, with the price in its text.
 */
export const MessageKind = Schema.Literal("text", "counter", "revision").annotations({
  description:
    "`text`: written by its sender; `counter`: posted by the buyer's counter-offer; `revision`: posted by the seller's revision of the offer"
})
export type MessageKind = typeof MessageKind.Type

/** A message of a conversation, as its sender wrote it. */
export const Message = Schema.Struct({
  id: Schema.UUID,
  conversationId: Schema.UUID,
  seq: Schema.Int.annotations({ description: "1, 2, 3, … within the conversation, in storing order, with no gaps" }),
  senderId: Schema.UUID,
  kind: MessageKind,
  messageText: Schema.String,
  /** Chosen by the sending client; a second send with the same one is the same message. */
  clientId: Schema.NullOr(Schema.String),
  readAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf
})
export interface Message extends Schema.Schema.Type<typeof Message> {}

/** A message about to be stored: its `seq` is given by the store, as the next one of its conversation. */
export type NewMessage = Omit<Message, "seq">

/** Whether the user is the buyer or the seller of the conversation (or of a deal), the only two who may read it. */
export const isParty = (conversation: Pick<Conversation, "buyerId" | "sellerId">, userId: string) =>
  conversation.buyerId === userId || conversation.sellerId === userId

/** The other party of a conversation, seen from one of its parties. */
export const otherParty = (conversation: Pick<Conversation, "buyerId" | "sellerId">, userId: string) =>
  conversation.buyerId === userId ? conversation.sellerId : conversation.buyerId

/** The longest message text, in characters after trimming; a longer one fails validation on `message_text`. */
export const MESSAGE_MAX_LENGTH = 4000
