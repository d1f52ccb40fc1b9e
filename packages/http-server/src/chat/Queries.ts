import { SqlClient, SqlSchema } from "@effect/sql"
import { type ConversationSummary, type MessageItem } from "@talab/contract"
import {
  Conversation,
  contactsShownAt,
  Message,
  OfferStatus,
  SPREAD_MESSAGES,
  SPREAD_MINUTES,
  SPREAD_SEQS,
  snakeCaseKeys,
  User
} from "@talab/core"
import * as Arr from "effect/Array"
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

/** A line of the spread of the message `askedSeq` of its conversation (see `spreadLines`). */
const SpreadLine = snakeCaseKeys({
  ...Message.pick("conversationId", "seq", "senderId", "messageText", "createdAt").fields,
  askedSeq: Schema.Number
})

const Total = Schema.Struct({ total: Schema.Number })

/**
 * The messages of the sender of the message `alias` (a row of messages in the query around) that the spread
 * rule can choose on one side of it: the nearest SPREAD_MESSAGES within SPREAD_SEQS, sent within SPREAD_MINUTES
 * of it (core's neighboursOf makes the choice from them). Columns seq, sender_id, message_text, created_at.
 */
export const nearestOfSender = (sql: SqlClient.SqlClient, alias: string, side: "before" | "after") => {
  const message = sql(alias)
  return sql`
    SELECT n.seq, n.sender_id, n.message_text, n.created_at FROM messages n
    WHERE n.conversation_id = ${message}.conversation_id AND n.sender_id = ${message}.sender_id
      AND ${
        side === "before"
          ? sql`n.seq >= ${message}.seq - ${SPREAD_SEQS} AND n.seq < ${message}.seq`
          : sql`n.seq > ${message}.seq AND n.seq <= ${message}.seq + ${SPREAD_SEQS}`
      }
      AND n.created_at BETWEEN ${message}.created_at - make_interval(mins => ${SPREAD_MINUTES})
                           AND ${message}.created_at + make_interval(mins => ${SPREAD_MINUTES})
    ORDER BY n.seq ${side === "before" ? sql`DESC` : sql`ASC`} LIMIT ${SPREAD_MESSAGES}`
}

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

    // The messages a history page's spreads are read from (core's neighboursOf): the conversation's from `from` to
    // `to` by seq.
    const messagesInRange = SqlSchema.findAll({
      Request: Schema.Struct({ conversationId: Schema.String, from: Schema.Number, to: Schema.Number }),
      Result: HistoryRow,
      execute: ({ conversationId, from, to }) => sql`
        SELECT id, conversation_id, seq, sender_id, kind, message_text, read_at, created_at FROM messages
        WHERE conversation_id = ${conversationId} AND seq BETWEEN ${from} AND ${to}
        ORDER BY seq`
    })
    /*
     * The lines each asked message's spread is chosen from: the message itself and, on each side of it within
     * SPREAD_SEQS, the nearest SPREAD_MESSAGES of its sender's messages sent within SPREAD_MINUTES of it. That is
     * all core's neighboursOf can choose, so the rest of the conversation is neither sent nor decoded, and
     * neighboursOf still makes the choice.
     */
    const spreadLines = SqlSchema.findAll({
      Request: Schema.Array(Schema.Struct({ conversationId: Schema.String, seq: Schema.Number })),
      Result: SpreadLine,
      execute: (asked) => sql`
        SELECT m.conversation_id, m.seq AS asked_seq, n.seq, n.sender_id, n.message_text, n.created_at
        FROM (VALUES ${sql.csv(asked.map(({ conversationId, seq }) => sql`(${conversationId}::uuid, ${seq}::int)`))})
          AS asked (conversation_id, seq)
        JOIN messages m ON m.conversation_id = asked.conversation_id AND m.seq = asked.seq
        CROSS JOIN LATERAL (
          SELECT m.seq, m.sender_id, m.message_text, m.created_at
          UNION ALL
          (${nearestOfSender(sql, "m", "before")})
          UNION ALL
          (${nearestOfSender(sql, "m", "after")})
        ) n`
    })

    /**
     * The spread of each message asked for (`aroundIn`), in one statement, keyed by `spreadKey`; a message not
     * found has none.
     */
    const spreadsAround = (
      messages: ReadonlyArray<{ readonly conversationId: string; readonly seq: number }>
    ): Effect.Effect<ReadonlyMap<string, Around>> => {
      if (messages.length === 0) return Effect.succeed(new Map())
      const asked = [...new Map(messages.map((m) => [spreadKey(m.conversationId, m.seq), m] as const)).values()]
      return spreadLines(asked).pipe(
        Effect.map((rows) => {
          const linesOf = Arr.groupBy(rows, (row) => spreadKey(row.conversationId, row.askedSeq))
          return new Map(
            asked.map(({ conversationId, seq }) => {
              const key = spreadKey(conversationId, seq)
              const lines = (linesOf[key] ?? []).sort((a, b) => a.seq - b.seq)
              return [key, aroundIn(lines, seq)] as const
            })
          )
        }),
        Effect.orDie
      )
    }

    /** The sender's messages read with the message of `seq` (see `aroundIn`). */
    const spreadAround = (conversationId: string, seq: number): Effect.Effect<Around> =>
      spreadsAround([{ conversationId, seq }]).pipe(
        Effect.map((spreads) => spreads.get(spreadKey(conversationId, seq)) ?? ALONE)
      )

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
          const spreadOf = rows.flatMap(({ id, lastMessage, offerStatus }) =>
            lastMessage !== null && lastMessage.senderId !== userId && !contactsShownAt(offerStatus)
              ? [{ conversationId: id, seq: lastMessage.seq }]
              : []
          )
          return spreadsAround(spreadOf).pipe(
            Effect.map((spreads) => ({
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
                          spreads.get(spreadKey(summary.id, lastMessage.seq))
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
              : messagesInRange({
                  conversationId,
                  from: Math.min(...seqs) - SPREAD_SEQS,
                  to: Math.max(...seqs) + SPREAD_SEQS
                })
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
