import { type SentMessage } from "@talab/contract"
import {
  asConversationParty,
  Chat,
  type Conversation,
  ConversationRepo,
  contactsShownAt,
  type LockedConversation,
  type Message,
  type MessageInput,
  MessageRepo
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { batchingOn } from "../db/WriteBatches.js"
import type { PageRequest } from "../http/Paging.js"
import { AttachedImages } from "../images/Attached.js"
import { RealtimeHub } from "../realtime/Hub.js"
import { type BatchedMessage, makeMessageBatcher } from "./MessageBatcher.js"
import { ChatQueries } from "./Queries.js"
import { ALONE, sentMessage } from "./Views.js"

/** Which page of a conversation's history to read. */
interface HistoryPage {
  readonly before?: Date | undefined
  readonly afterSeq?: number | undefined
  readonly limit: number
}

interface SendOptions {
  /** Runs once the message is stored, before it is delivered to the subscribed sockets (the sender's ack). */
  readonly onStored?: ((message: SentMessage) => Effect.Effect<void>) | undefined
}

/** Conversations and their messages, for REST and WebSocket alike. */
export class ChatService extends Effect.Service<ChatService>()("Chat/Service", {
  dependencies: [ChatQueries.Default, Chat.Default],
  effect: Effect.gen(function* () {
    const conversations = yield* ConversationRepo
    const messages = yield* MessageRepo
    const queries = yield* ChatQueries
    const hub = yield* RealtimeHub
    const chat = yield* Chat
    const attached = yield* AttachedImages
    // Messages sent at the same moment, over REST and the sockets alike, are stored in one transaction.
    const batcher = (yield* batchingOn((config) => config.messageBatch))
      ? yield* makeMessageBatcher(hub.isOnline)
      : {
          send: (senderId: string, conversationId: string, input: MessageInput) =>
            chat.send(senderId, conversationId, input, hub.isOnline)
        }
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** The conversation, if the user is one of its two parties. */
    const conversationOf = (userId: string, conversationId: string) =>
      Effect.flatMap(conversations.findById(conversationId), (found) => asConversationParty(found, userId))

    const listMine = (userId: string, page: PageRequest) => queries.listForUser(userId, page)

    /**
     * A page of history: older than `before` (newest first), or after the seq `afterSeq` (oldest first).
     * Reading it marks every message the other party sent as read.
     */
    const readMessages = (userId: string, conversationId: string, page: HistoryPage) =>
      Effect.gen(function* () {
        const conversation = yield* conversationOf(userId, conversationId)
        yield* messages.markRead(conversation.id, userId, yield* now)
        return page.afterSeq === undefined
          ? yield* queries.messagesPage(conversation.id, userId, page.before, page.limit)
          : yield* queries.messagesAfter(conversation.id, userId, page.afterSeq, page.limit)
      })

    /**
     * Up to `limit` messages after `afterSeq`, oldest first, as the party `userId` may read them (the
     * WebSocket's catch-up); marks nothing.
     */
    const messagesAfter = (userId: string, conversation: Conversation, afterSeq: number, limit: number) =>
      queries.messagesAfter(conversation.id, userId, afterSeq, limit)

    /** Marks the other party's messages up to `upToSeq` as read; answers what the reader still has unread. */
    const markReadUpTo = (userId: string, conversationId: string, upToSeq: number) =>
      Effect.gen(function* () {
        const conversation = yield* conversationOf(userId, conversationId)
        yield* messages.markRead(conversation.id, userId, yield* now, upToSeq)
        return { conversationId: conversation.id, unreadCount: yield* queries.unreadCount(conversation.id, userId) }
      })

    /**
     * Delivers a message stored (and committed) elsewhere, such as the one a counter or a revision posts, to every
     * socket subscribed to its conversation, as `sendMessage` delivers its own.
     */
    const deliverStored = (conversation: LockedConversation, message: Message) =>
      Effect.gen(function* () {
        const view = sentMessage(message)
        const shown = contactsShownAt(conversation.offerStatus)
        const around = shown ? ALONE : yield* queries.spreadAround(conversation.id, message.seq)
        yield* hub.publish(conversation, view, shown, around)
        return view
      })

    /**
     * Stores a message through core's `Chat.send` (MessageSent raised in the same transaction, no push owed to a
     * recipient whose socket is subscribed to the conversation) and delivers it to every socket subscribed to it.
     */
    const sendMessage = (senderId: string, conversationId: string, input: MessageInput, options: SendOptions = {}) =>
      Effect.gen(function* () {
        const sent: BatchedMessage = yield* batcher.send(senderId, conversationId, input)
        const { conversation, created, message } = sent
        // Only a message that asked for attachments can have them (a repeat answers the first's).
        const attachments =
          (input.attachmentIds?.length ?? 0) === 0 ? undefined : yield* attached.of("message", [message.id])
        const view = sentMessage(message, attachments?.(message.id))
        if (options.onStored) yield* options.onStored(view)
        // Whether contacts show is as the lock read it: an accept committed while the message was being
        // stored is a race either answer is true to, and the next read of the history shows the accept.
        if (created) {
          const shown = contactsShownAt(conversation.offerStatus)
          const around = shown ? ALONE : (sent.around ?? (yield* queries.spreadAround(conversation.id, message.seq)))
          yield* hub.publish(conversation, view, shown, around)
        }
        return view
      })

    return {
      conversationOf,
      listMine,
      readMessages,
      messagesAfter,
      markReadUpTo,
      sendMessage,
      deliverStored
    } as const
  })
}) {}
