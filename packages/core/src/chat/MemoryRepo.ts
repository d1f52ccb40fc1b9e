import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowsWhere, rowWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore, UniqueViolation } from "../memory/Store.js"
import type { Message } from "./Conversation.js"
import { ConversationRepo, MessageRepo } from "./Repo.js"

/** {@link ConversationRepo} over the {@link MemoryStore}: one conversation per offer. */
export const MemoryConversationRepo = Layer.effect(
  ConversationRepo,
  Effect.map(MemoryStore, (store) =>
    ConversationRepo.of({
      insert: (conversation) =>
        store.write((t) => {
          if (Option.isSome(rowWhere(t.conversations, (c) => c.offerId === conversation.offerId)))
            throw new UniqueViolation({ constraint: "conversations_offer_id_key" })
          return [
            undefined,
            insertNew(t, "conversations", conversation.id, conversation, "conversations_pkey")
          ] as const
        }),
      findById: (id) => store.read((t) => HashMap.get(t.conversations, id)),
      findByOfferId: (offerId) => store.read((t) => rowWhere(t.conversations, (c) => c.offerId === offerId)),
      lock: (id) =>
        store.write((t) =>
          unchanged(
            Option.flatMap(HashMap.get(t.conversations, id), (conversation) =>
              Option.map(HashMap.get(t.offers, conversation.offerId), (offer) => ({
                ...conversation,
                offerStatus: offer.status
              }))
            ),
            t
          )
        )
    })
  )
)

/** {@link MessageRepo} over the {@link MemoryStore}: seq 1, 2, 3, … per conversation; one message per sender and client id. */
export const MemoryMessageRepo = Layer.effect(
  MessageRepo,
  Effect.map(MemoryStore, (store) =>
    MessageRepo.of({
      insertOnce: (message) =>
        store.write<{ readonly message: Message; readonly created: boolean }>((t) => {
          const sent =
            message.clientId === null
              ? Option.none<Message>()
              : rowWhere(t.messages, (m) => m.senderId === message.senderId && m.clientId === message.clientId)
          if (Option.isSome(sent)) return unchanged({ message: sent.value, created: false }, t)
          const seq =
            rowsWhere(t.messages, (m) => m.conversationId === message.conversationId).reduce(
              (last, m) => Math.max(last, m.seq),
              0
            ) + 1
          const stored: Message = { ...message, seq }
          const withMessage = insertNew(t, "messages", stored.id, stored, "messages_pkey")
          const conversations = HashMap.modify(withMessage.conversations, message.conversationId, (conversation) =>
            conversation.lastMessageAt !== null && conversation.lastMessageAt >= stored.createdAt
              ? conversation
              : { ...conversation, lastMessageAt: stored.createdAt }
          )
          return [
            { message: stored, created: true },
            { ...withMessage, conversations }
          ]
        }),
      markRead: (conversationId, readerId, at, upToSeq) =>
        store.write((t) => {
          const unread = rowsWhere(
            t.messages,
            (m) =>
              m.conversationId === conversationId &&
              m.senderId !== readerId &&
              m.readAt === null &&
              (upToSeq === undefined || m.seq <= upToSeq)
          )
          const messages = unread.reduce((rows, m) => HashMap.set(rows, m.id, { ...m, readAt: at }), t.messages)
          return [unread.length, { ...t, messages }]
        })
    })
  )
)
