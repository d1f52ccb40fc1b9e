import { SqlClient, SqlSchema } from "@effect/sql"
import { type ConversationSummary, type MessageItem } from "@talab/contract"
import { Conversation, contactsShownAt, Message, OfferStatus, SPREAD_SEQS, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"
import { AttachedImages } from "../images/Attached.js"
import { PublicUrl, shownAvatar } from "../users/AvatarUrl.js"
import { MessageRow } from "./SqlMessageRepo.js"
import { ALONE, type Around, aroundIn, shownTo, textFor } from "./Views.js"

const LastMessage = Message.pick("messageText", "seq", "senderId", "createdAt")

/** A conversation of the list as read, before its last message is shown to the reader. */
const SummaryRow = Schema.Struct({
  ...Conversation.pick("id", "offerId", "createdAt").fields,
  otherParty: Schema.Struct({ ...User.pick("id", "name", "avatarUrl").fields, deleted: Schema.Boolean }),
  lastMessage: Schema.NullOr(LastMessage),
  offerStatus: OfferStatus,
  unreadCount: Schema.Int
})

const summaryColumns = [
  columnsAs("p", fieldNames(SummaryRow, "otherParty", "lastMessage", "offerStatus", "unreadCount")),
  columnsAs("u", fieldNames(SummaryRow.fields.otherParty), "otherParty"),
  columnsAs("last", fieldNames(LastMessage), "lastMessage"),
  `o.status AS "offerStatus"`
].join(", ")

const HistoryRow = MessageRow.omit("clientId")

const Total = Schema.Struct({ total: Schema.Number })

/** The key of a message's spread in `spreadsAround`'s answer. */
export const spreadKey = (conversationId: string, seq: number) => `${conversationId}\n${seq}`

/** A page of messages, and whether more lie beyond it. */
interface MessagePage {
  readonly messages: ReadonlyArray<MessageItem>
  readonly hasMore: boolean
}

/** Read models of conversations and their messages. */
export class ChatQueries extends Effect.Service<ChatQueries>()("Chat/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const publicUrl = yield* PublicUrl
    const attached = yield* AttachedImages

    /*
     * Each side walks its own index (conversations_by_buyer / _by_seller, ordered by last activity) for just
     * enough rows, and the two are merged: an OR over both columns would sort the user's whole list.
     */
    const summaryPage = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number, offset: Schema.Number }),
      Result: SummaryRow,
      execute: ({ limit, offset, userId }) =>
        sql<Record<string, unknown>>`
        WITH mine AS (
          (SELECT id, offer_id, created_at, last_message_at, seller_id AS other_id FROM conversations
           WHERE buyer_id = ${userId}
           ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT ${offset + limit})
          UNION ALL
          (SELECT id, offer_id, created_at, last_message_at, buyer_id AS other_id FROM conversations
           WHERE seller_id = ${userId}
           ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT ${offset + limit})
        ), page AS (
          SELECT * FROM mine
          ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT ${limit} OFFSET ${offset}
        )
        SELECT ${sql.literal(summaryColumns)},
               (SELECT count(*) FROM messages m
                WHERE m.conversation_id = p.id AND m.sender_id = p.other_id AND m.read_at IS NULL)::int AS "unreadCount"
        FROM page p
        JOIN users u ON u.id = p.other_id
        JOIN offers o ON o.id = p.offer_id
        LEFT JOIN LATERAL (
          SELECT message_text, seq, sender_id, created_at FROM messages m
          WHERE m.conversation_id = p.id ORDER BY m.seq DESC LIMIT 1
        ) last ON true
        ORDER BY COALESCE(p.last_message_at, p.created_at) DESC, p.id DESC`.pipe(Effect.map((rows) => rows.map(nested)))
    })
    const summaryTotal = SqlSchema.single({
      Request: Schema.String,
      Result: Total,
      execute: (userId) => sql`
        SELECT ((SELECT count(*) FROM conversations WHERE buyer_id = ${userId})
              + (SELECT count(*) FROM conversations WHERE seller_id = ${userId}))::int AS total`
    })

    // Walks messages_by_conversation (conversation_id, created_at DESC, id DESC); one row more tells has_more.
    const messagesBefore = SqlSchema.findAll({
      Request: Schema.Struct({
        conversationId: Schema.String,
        before: Schema.UndefinedOr(Schema.DateFromSelf),
        limit: Schema.Number
      }),
      Result: HistoryRow,
      execute: ({ before, conversationId, limit }) => sql`
        SELECT id, conversation_id, seq, sender_id, kind, message_text, read_at, created_at FROM messages
        WHERE conversation_id = ${conversationId}
          ${before === undefined ? sql`` : sql`AND created_at < ${before}`}
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit + 1}`
    })

    // Walks messages_by_conversation_seq forward; one row more tells has_more.
    const messagesAfterSeq = SqlSchema.findAll({
      Request: Schema.Struct({ conversationId: Schema.String, afterSeq: Schema.Number, limit: Schema.Number }),
      Result: HistoryRow,
      execute: ({ afterSeq, conversationId, limit }) => sql`
        SELECT id, conversation_id, seq, sender_id, kind, message_text, read_at, created_at FROM messages
        WHERE conversation_id = ${conversationId} AND seq > ${afterSeq}
        ORDER BY seq
        LIMIT ${limit + 1}`
    })
    const unread = SqlSchema.single({
      Request: Schema.Struct({ conversationId: Schema.String, readerId: Schema.String }),
      Result: Schema.Struct({ unreadCount: Schema.Int }),
      execute: ({ conversationId, readerId }) => sql`
        SELECT count(*)::int AS "unreadCount" FROM messages
        WHERE conversation_id = ${conversationId} AND sender_id <> ${readerId} AND read_at IS NULL`
    })

    // The messages spreads are read from (core's neighboursOf), for several conversations in one statement: each
    // conversation's messages from `from` to `to` by seq.
    const messagesInRanges = SqlSchema.findAll({
      Request: Schema.Array(Schema.Struct({ conversationId: Schema.String, from: Schema.Number, to: Schema.Number })),
      Result: HistoryRow,
      execute: (ranges) => sql`
        SELECT id, conversation_id, seq, sender_id, kind, message_text, read_at, created_at FROM messages
        WHERE ${sql.or(
          ranges.map(
            ({ conversationId, from, to }) =>
              sql`(conversation_id = ${conversationId} AND seq BETWEEN ${from} AND ${to})`
          )
        )}
        ORDER BY conversation_id, seq`
    })
    const byConversation = <Row extends { readonly conversationId: string }>(rows: ReadonlyArray<Row>) => {
      const lines = new Map<string, Array<Row>>()
      for (const row of rows) {
        const known = lines.get(row.conversationId)
        if (known === undefined) lines.set(row.conversationId, [row])
        else known.push(row)
      }
      return lines
    }

    /** The sender's messages read with the message of `seq` (see `aroundIn`). */
    const spreadAround = (conversationId: string, seq: number): Effect.Effect<Around> =>
      messagesInRanges([{ conversationId, from: seq - SPREAD_SEQS, to: seq + SPREAD_SEQS }]).pipe(
        Effect.map((lines) => aroundIn(lines, seq)),
        Effect.orDie
      )

    /**
     * `spreadAround` of several messages in one statement: the messages of each conversation from SPREAD_SEQS
     * before its first seq asked to SPREAD_SEQS after its last. Keyed by `spreadKey`.
     */
    const spreadsAround = (
      messages: ReadonlyArray<{ readonly conversationId: string; readonly seq: number }>
    ): Effect.Effect<ReadonlyMap<string, Around>> => {
      if (messages.length === 0) return Effect.succeed(new Map())
      const seqs = new Map<string, { first: number; last: number }>()
      for (const { conversationId, seq } of messages) {
        const known = seqs.get(conversationId) ?? { first: seq, last: seq }
        seqs.set(conversationId, { first: Math.min(known.first, seq), last: Math.max(known.last, seq) })
      }
      const ranges = [...seqs].map(([conversationId, { first, last }]) => ({
        conversationId,
        from: first - SPREAD_SEQS,
        to: last + SPREAD_SEQS
      }))
      return messagesInRanges(ranges).pipe(
        Effect.map((rows) => {
          const lines = byConversation(rows)
          return new Map(
            messages.map(({ conversationId, seq }) => [
              spreadKey(conversationId, seq),
              aroundIn(lines.get(conversationId) ?? [], seq)
            ])
          )
        }),
        Effect.orDie
      )
    }

    const offerStatusOf = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ status: OfferStatus }),
      execute: (conversationId) => sql`
        SELECT o.status FROM conversations c JOIN offers o ON o.id = c.offer_id WHERE c.id = ${conversationId}`
    })

    /** Whether the parties of a conversation see each other's contact details (its offer is accepted). */
    const contactsShown = (conversationId: string): Effect.Effect<boolean> =>
      offerStatusOf(conversationId).pipe(
        Effect.map(({ status }) => contactsShownAt(status)),
        Effect.orDie
      )

    /** The user's conversations, most recent activity first. */
    const listForUser = (userId: string, page: PageRequest): Effect.Effect<Paged<ConversationSummary>> =>
      rowsAndTotal(summaryPage({ userId, limit: page.perPage, offset: offsetOf(page) }), summaryTotal(userId)).pipe(
        Effect.flatMap(({ rows, total }) => {
          // Nothing follows a last message: its spread is what came before it.
          const lastSpreads = rows.flatMap(({ id, lastMessage, offerStatus }) =>
            lastMessage !== null && lastMessage.senderId !== userId && !contactsShownAt(offerStatus)
              ? [{ conversationId: id, from: lastMessage.seq - SPREAD_SEQS, to: lastMessage.seq }]
              : []
          )
          return (lastSpreads.length === 0 ? Effect.succeed([]) : messagesInRanges(lastSpreads)).pipe(
            Effect.map(byConversation),
            Effect.map((lines) => ({
              total: total.total,
              items: rows.map(({ lastMessage, offerStatus, otherParty, ...summary }) => ({
                ...summary,
                otherParty: { ...otherParty, avatarUrl: shownAvatar(publicUrl, otherParty.avatarUrl) },
                lastMessage:
                  lastMessage === null
                    ? null
                    : {
                        ...lastMessage,
                        ...textFor(
                          lastMessage,
                          userId,
                          contactsShownAt(offerStatus),
                          aroundIn(lines.get(summary.id) ?? [], lastMessage.seq)
                        )
                      }
              }))
            }))
          )
        }),
        Effect.orDie
      )

    /** `limit` of the rows (one more was read to tell `hasMore`), as `viewerId` may read them. */
    const pageFor = <E>(
      conversationId: string,
      viewerId: string,
      limit: number,
      rows: Effect.Effect<ReadonlyArray<typeof HistoryRow.Type>, E>
    ): Effect.Effect<MessagePage> =>
      Effect.all([rows, contactsShown(conversationId)]).pipe(
        Effect.flatMap(([rows, shown]) => {
          const page = rows.slice(0, limit)
          const seqs = page.map((row) => row.seq)
          const spread =
            shown || page.every((row) => row.senderId === viewerId)
              ? Effect.succeed([])
              : messagesInRanges([
                  { conversationId, from: Math.min(...seqs) - SPREAD_SEQS, to: Math.max(...seqs) + SPREAD_SEQS }
                ])
          return Effect.all([
            spread,
            attached.of(
              "message",
              page.map((row) => row.id)
            )
          ]).pipe(
            Effect.map(([lines, attachmentsOf]) => ({
              messages: page.map((row) =>
                shownTo(
                  { ...row, masked: false, attachments: attachmentsOf(row.id) },
                  viewerId,
                  shown,
                  lines.length === 0 ? ALONE : aroundIn(lines, row.seq)
                )
              ),
              hasMore: rows.length > limit
            }))
          )
        }),
        Effect.orDie
      )

    /**
     * Up to `limit` messages older than `before` (all when undefined), newest first, as `viewerId` may read
     * them, and whether more are older.
     */
    const messagesPage = (
      conversationId: string,
      viewerId: string,
      before: Date | undefined,
      limit: number
    ): Effect.Effect<MessagePage> =>
      pageFor(conversationId, viewerId, limit, messagesBefore({ conversationId, before, limit }))

    /**
     * Up to `limit` messages after `afterSeq`, oldest first, as `viewerId` may read them, and whether more
     * come after them.
     */
    const messagesAfter = (
      conversationId: string,
      viewerId: string,
      afterSeq: number,
      limit: number
    ): Effect.Effect<MessagePage> =>
      pageFor(conversationId, viewerId, limit, messagesAfterSeq({ conversationId, afterSeq, limit }))

    /** How many of the other party's messages the reader has not read. */
    const unreadCount = (conversationId: string, readerId: string): Effect.Effect<number> =>
      unread({ conversationId, readerId }).pipe(
        Effect.map((row) => row.unreadCount),
        Effect.orDie
      )

    return { listForUser, messagesPage, messagesAfter, spreadAround, spreadsAround, unreadCount } as const
  })
}) {}
