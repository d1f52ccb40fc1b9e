import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { attachImages, ImageIds, MAX_MESSAGE_ATTACHMENTS } from "../images/Images.js"
import { ImageRepo } from "../images/Repo.js"
import { Ids } from "../platform/Ids.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { ValidationFailed } from "../shared/Errors.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { DomainEvent } from "../shared/Events.js"
import { FreeText, Optional, Text } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { Transactor } from "../shared/Transactor.js"
import {
  type Conversation,
  type LockedConversation,
  MESSAGE_MAX_LENGTH,
  type Message,
  type NewMessage,
  otherParty
} from "./Conversation.js"
import { asConversationParty, requireMayWrite } from "./Policy.js"
import { ConversationRepo, MessageRepo } from "./Repo.js"

/** The longest id a sender may give a message (`clientId`), in characters. */
export const MESSAGE_CLIENT_ID_MAX_LENGTH = 100

/** What one party sends to a conversation. */
export const MessageInput = Schema.Struct({
  /** May be empty or left out when the message carries attachments; stored and shown as "" then. */
  messageText: Schema.optional(FreeText(0, MESSAGE_MAX_LENGTH)),
  /** The sender's own unattached images, shown in this order under the text. */
  attachmentIds: Schema.optional(ImageIds(MAX_MESSAGE_ATTACHMENTS)),
  /** The sender's id for this message; a second send with the same one stores nothing and answers the first. */
  clientId: Optional(Text(1, MESSAGE_CLIENT_ID_MAX_LENGTH))
})
export type MessageInput = typeof MessageInput.Type

/** Whether a message carries attachments, which it then stores through `Chat.send` (they are attached with it). */
export const hasAttachments = (input: MessageInput) => (input.attachmentIds?.length ?? 0) > 0

/** A message with neither text nor attachment says nothing: refused on `message_text`, as an empty text always was. */
export const requireContent = (input: MessageInput): Effect.Effect<string, ValidationFailed> => {
  const text = input.messageText ?? ""
  return text === "" && !hasAttachments(input)
    ? Effect.fail(ValidationFailed.field("message_text", "too_short", { min: 1 }))
    : Effect.succeed(text)
}

/**
 * Whether the recipient is reading the conversation right now, asked while the message is stored: a recipient
 * who is not owes a `message` push (`MessageSent.recipientOnline`). Embedders without live readers answer false.
 */
export type RecipientPresence = (conversationId: string, recipientId: string) => Effect.Effect<boolean>

/** A stored message, the conversation as it was locked for it, and whether this send stored it (not a repeat). */
export interface StoredMessage {
  readonly conversation: LockedConversation
  readonly message: Message
  readonly created: boolean
}

/**
 * Stores a message in a conversation the caller holds locked, through the one path every message takes: the
 * next seq, and a time strictly after the conversation's previous message (so paging by time never splits two).
 */
export const storeInLockedConversation = (
  messages: Context.Tag.Service<typeof MessageRepo>,
  conversation: Pick<Conversation, "id" | "lastMessageAt">,
  message: Omit<NewMessage, "conversationId" | "readAt" | "createdAt">,
  at: Date
) => {
  const previous = conversation.lastMessageAt?.getTime() ?? Number.NEGATIVE_INFINITY
  return messages.insertOnce({
    ...message,
    conversationId: conversation.id,
    readAt: null,
    createdAt: new Date(Math.max(at.getTime(), previous + 1))
  })
}

/** The chat workflow: sending a message to a conversation (delivery to live readers is the embedder's). */
export class Chat extends Effect.Service<Chat>()("@talab/core/Chat", {
  effect: Effect.gen(function* () {
    const conversations = yield* ConversationRepo
    const messages = yield* MessageRepo
    const profiles = yield* SellerProfileRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const images = yield* ImageRepo

    /**
     * Stores a message and raises `MessageSent` in the same transaction. Messages of one conversation are
     * stored one at a time (the conversation is locked), each strictly after the previous one and with the
     * next seq, so paging by time never splits two that share an instant and paging by seq never skips one.
     * The input is {@link MessageInput} as decoded: its text rules are the schema's, not checked again here.
     * A seller whose profile is not approved writes only in the conversation of an accepted offer
     * (`requireMayWrite`); their profile is locked, shared, before the conversation (the ports' lock order), so
     * a suspension either waits for the message or is seen by it.
     */
    const send = (
      senderId: string,
      conversationId: string,
      input: MessageInput,
      recipientPresence: RecipientPresence
    ) =>
      transactor.transaction(
        Effect.gen(function* () {
          const messageText = yield* requireContent(input)
          const seen = yield* conversations.findById(conversationId)
          const sellerProfile = Option.exists(seen, (c) => c.sellerId === senderId)
            ? yield* profiles.lockSharedByUserId(senderId)
            : Option.none()
          const conversation = yield* asConversationParty(yield* conversations.lock(conversationId), senderId)
          yield* requireMayWrite(conversation, senderId, sellerProfile)
          const recipientId = otherParty(conversation, senderId)
          const recipientOnline = yield* recipientPresence(conversation.id, recipientId)
          const at = yield* currentDate
          const stored = yield* storeInLockedConversation(
            messages,
            conversation,
            {
              id: yield* ids.next,
              senderId,
              kind: "text",
              messageText,
              clientId: input.clientId ?? null
            },
            at
          )
          if (stored.created) {
            // Attached with the message, or nothing is stored: the transaction (and the seq) rolls back.
            const holder = { kind: "message", id: stored.message.id } as const
            yield* attachImages(images, { id: senderId }, input.attachmentIds, holder, "attachment_ids")
            yield* outbox.append(
              [
                DomainEvent.MessageSent({
                  messageId: stored.message.id,
                  conversationId: conversation.id,
                  senderId,
                  recipientId,
                  recipientOnline
                })
              ],
              at
            )
          }
          const sent: StoredMessage = { conversation, message: stored.message, created: stored.created }
          return sent
        })
      )

    return { send } as const
  })
}) {}
