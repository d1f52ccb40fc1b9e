import type { OfferStatus } from "./Offer.js"

/** The one-to-one chat between the buyer of a request and the seller of an offer on it. */
export interface Conversation {
  readonly id: string
  readonly offerId: string
  readonly buyerId: string
  readonly sellerId: string
  readonly createdAt: Date
  readonly lastMessageAt: Date | null
}

/** A conversation read for update, with the status its offer had at that moment. */
export interface LockedConversation extends Conversation {
  readonly offerStatus: OfferStatus
}

/** The parties of a conversation see each other's contact details once its offer is accepted (docs/DECISIONS.md). */
export const contactsShownAt = (offerStatus: OfferStatus) => offerStatus === "accepted"

export interface Message {
  readonly id: string
  readonly conversationId: string
  /** 1, 2, 3, … within the conversation, in the order the messages were stored, with no gaps. */
  readonly seq: number
  readonly senderId: string
  readonly messageText: string
  readonly clientId: string | null
  readonly readAt: Date | null
  readonly createdAt: Date
}

/** A message about to be stored: its `seq` is given by the store, as the next one of its conversation. */
export type NewMessage = Omit<Message, "seq">

export const isParty = (conversation: Pick<Conversation, "buyerId" | "sellerId">, userId: string) =>
  conversation.buyerId === userId || conversation.sellerId === userId

/** The other party of a conversation, seen from one of its parties. */
export const otherParty = (conversation: Pick<Conversation, "buyerId" | "sellerId">, userId: string) =>
  conversation.buyerId === userId ? conversation.sellerId : conversation.buyerId

export const MESSAGE_MAX_LENGTH = 4000
