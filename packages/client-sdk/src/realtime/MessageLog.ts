import type { ChatMessage } from "./frames.js"
import type { MessagePage } from "./RealtimeClient.js"

/** Where a conversation stands: its newest message the app has. */
export interface MessagePosition {
  readonly id: string
  readonly created_at: string
}

/** How many message ids per conversation are remembered to drop duplicates. */
const REMEMBERED_IDS = 1_000

interface ConversationLog {
  /** The newest message seen; null when the conversation was empty; undefined before anything is known. */
  position: MessagePosition | null | undefined
  readonly seen: Set<string>
  held: Array<ChatMessage> | undefined
}

const isOlder = (a: string, b: string) => Date.parse(a) < Date.parse(b)

/**
 * Per conversation: the newest message seen (where a catch-up starts), the ids already emitted (so each
 * message is emitted once), and live messages held back while a catch-up runs (so they come after it).
 */
export class MessageLog {
  private readonly conversations = new Map<string, ConversationLog>()

  private of(conversationId: string): ConversationLog {
    let log = this.conversations.get(conversationId)
    if (log === undefined) {
      log = { position: undefined, seen: new Set(), held: undefined }
      this.conversations.set(conversationId, log)
    }
    return log
  }

  /** Sets where the app's history ends, unless a newer message was seen already. */
  startAfter(conversationId: string, position: MessagePosition): void {
    const log = this.of(conversationId)
    if (!log.position || isOlder(log.position.created_at, position.created_at)) log.position = position
    this.remember(log, position.id)
  }

  /** Records a message; false when it was emitted before. */
  record(message: ChatMessage): boolean {
    const log = this.of(message.conversation_id)
    if (log.seen.has(message.id)) return false
    this.remember(log, message.id)
    if (!log.position || !isOlder(message.created_at, log.position.created_at)) {
      log.position = { id: message.id, created_at: message.created_at }
    }
    return true
  }

  /** Starts holding live messages of a conversation back. */
  holdLive(conversationId: string): void {
    this.of(conversationId).held ??= []
  }

  /** Whether live messages of a conversation are held back. */
  isHeld(conversationId: string): boolean {
    return this.conversations.get(conversationId)?.held !== undefined
  }

  /** Holds a live message back. */
  hold(message: ChatMessage): void {
    this.of(message.conversation_id).held?.push(message)
  }

  /** Stops holding; answers the held messages, oldest first. */
  releaseLive(conversationId: string): ReadonlyArray<ChatMessage> {
    const log = this.of(conversationId)
    const held = log.held ?? []
    log.held = undefined
    return [...held].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
  }

  /**
   * The messages stored after the position, oldest first, read page by page (newest first) until it.
   * With no position yet, only records where the conversation stands (`baseline`) and answers none.
   */
  async missedSince(
    conversationId: string,
    fetchPage: (before: string | undefined, limit: number) => Promise<MessagePage>,
    pageSize: number
  ): Promise<{ readonly messages: ReadonlyArray<ChatMessage>; readonly baseline: boolean }> {
    const log = this.of(conversationId)
    const start = log.position
    if (start === undefined) {
      const newest = (await fetchPage(undefined, 1)).messages[0]
      if (log.position === undefined) log.position = newest ? { id: newest.id, created_at: newest.created_at } : null
      return { messages: [], baseline: true }
    }
    const missed: Array<ChatMessage> = []
    let before: string | undefined
    for (;;) {
      const page = await fetchPage(before, pageSize)
      for (const message of page.messages) {
        if (start !== null && (message.id === start.id || isOlder(message.created_at, start.created_at))) {
          return { messages: missed.reverse(), baseline: false }
        }
        missed.push({ ...message, conversation_id: message.conversation_id ?? conversationId })
      }
      const oldest = page.messages[page.messages.length - 1]
      if (!page.has_more || oldest === undefined) return { messages: missed.reverse(), baseline: false }
      before = oldest.created_at
    }
  }

  private remember(log: ConversationLog, id: string) {
    log.seen.add(id)
    if (log.seen.size > REMEMBERED_IDS) {
      const oldest = log.seen.values().next().value
      if (oldest !== undefined) log.seen.delete(oldest)
    }
  }
}
