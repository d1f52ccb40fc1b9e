import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Conversation, LockedConversation, Message, NewMessage } from "./Conversation.js"

/** Port: stores conversations, one per offer. */
export class ConversationRepo extends Context.Tag("@talab/core/ConversationRepo")<
  ConversationRepo,
  {
    readonly insert: (conversation: Conversation) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Conversation>>
    readonly findByOfferId: (offerId: string) => Effect.Effect<Option.Option<Conversation>>
    /**
     * Reads the conversation for update, so messages sent to it are stored one at a time, with its offer's
     * status (whether the message's recipient sees contact details) read in the same round trip.
     */
    readonly lock: (id: string) => Effect.Effect<Option.Option<LockedConversation>>
  }
>() {}

/** Port: stores conversations' messages, numbered by `seq`, and marks them read. */
export class MessageRepo extends Context.Tag("@talab/core/MessageRepo")<
  MessageRepo,
  {
    /**
     * Stores a message with the next `seq` of its conversation (call it with the conversation locked) and
     * moves the conversation's `lastMessageAt` to the message's time, never back; with a client id, a second
     * store by the same sender answers the first message, takes no seq and moves nothing.
     */
    readonly insertOnce: (
      message: NewMessage
    ) => Effect.Effect<{ readonly message: Message; readonly created: boolean }>
    /**
     * Marks the other party's unread messages as read (those up to `upToSeq` when given); answers how many.
     */
    readonly markRead: (conversationId: string, readerId: string, at: Date, upToSeq?: number) => Effect.Effect<number>
  }
>() {}
