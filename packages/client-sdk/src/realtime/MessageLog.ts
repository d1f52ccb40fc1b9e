import type { ChatMessage } from "./frames.js"

/** Where a conversation stands for the app: the `seq` of the last message it has (a message will do). */
export interface MessagePosition {
  readonly seq: number
}

interface ConversationLog {
  /** The seq of the last message emitted, every one before it emitted too; undefined while unknown. */
  emitted: number | undefined
  /** Messages that came ahead of a missing one, by seq, until the gap is filled. */
  readonly waiting: Map<number, ChatMessage>
}

/**
 * Per conversation, the ordered log of messages: each one is released exactly once and in `seq` order.
 * A message that comes ahead of one still missing waits until the gap is filled (by the missing one coming
 * late, or by a fetch of the messages after {@link lastSeq}); one at or below {@link lastSeq} is a duplicate.
 */
export class MessageLog {
  private readonly conversations = new Map<string, ConversationLog>()

  private of(conversationId: string): ConversationLog {
    let log = this.conversations.get(conversationId)
    if (log === undefined) {
      log = { emitted: undefined, waiting: new Map() }
      this.conversations.set(conversationId, log)
    }
    return log
  }

  /** The seq of the last message released in order, where a resume starts; undefined while unknown. */
  lastSeq(conversationId: string): number | undefined {
    return this.conversations.get(conversationId)?.emitted
  }

  /**
   * The app has everything up to `seq` (its history, or where the conversation stood when it subscribed):
   * nothing at or below it will be released. Answers the waiting messages this makes next in line.
   */
  startAfter(conversationId: string, seq: number): ReadonlyArray<ChatMessage> {
    const log = this.of(conversationId)
    if (log.emitted !== undefined && log.emitted >= seq) return []
    log.emitted = seq
    for (const waiting of log.waiting.keys()) if (waiting <= seq) log.waiting.delete(waiting)
    return this.releaseFrom(log)
  }

  /**
   * Takes a message in; answers the messages it makes next in line, in seq order (none when it is a duplicate
   * or comes ahead of a missing one). The first message of a conversation whose position is unknown starts it.
   */
  accept(message: ChatMessage): ReadonlyArray<ChatMessage> {
    const log = this.of(message.conversation_id)
    log.emitted ??= message.seq - 1
    if (message.seq <= log.emitted || log.waiting.has(message.seq)) return []
    log.waiting.set(message.seq, message)
    return this.releaseFrom(log)
  }

  /** Whether messages of the conversation wait for a missing one. */
  hasGap(conversationId: string): boolean {
    return (this.conversations.get(conversationId)?.waiting.size ?? 0) > 0
  }

  private releaseFrom(log: ConversationLog): ReadonlyArray<ChatMessage> {
    const released: Array<ChatMessage> = []
    for (;;) {
      const next = log.waiting.get((log.emitted ?? 0) + 1)
      if (next === undefined) return released
      log.waiting.delete(next.seq)
      log.emitted = next.seq
      released.push(next)
    }
  }
}
