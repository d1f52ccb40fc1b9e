import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { translate } from "@talab/contract"
import {
  type Category,
  contactsShownAt,
  type Language,
  maskContactsAmong,
  type OfferStatus,
  type Platform,
  type PushType,
  SPREAD_MESSAGES,
  SPREAD_MINUTES,
  SPREAD_SEQS
} from "@talab/core"
import * as Effect from "effect/Effect"
import { textArrayLiteral } from "../db/PgArrays.js"

/** What a push about an offer (or its deal) says: who, what, how much. */
export interface OfferFacts {
  readonly sellerId: string
  readonly sellerName: string | null
  readonly buyerName: string | null
  /** The seller, or the buyer, deleted their account since: named as a deleted user. */
  readonly sellerDeleted: boolean
  readonly buyerDeleted: boolean
  readonly price: number
  readonly category: Category
  readonly productBrand: string | null
  readonly productModel: string | null
}

/** What a push about a message says: who wrote what. */
interface MessageFacts {
  readonly senderName: string | null
  readonly senderDeleted: boolean
  readonly messageText: string
  /** The message carries photos: a message of photos alone is announced as one. */
  readonly hasAttachments: boolean
  /** The texts of the sender's messages read with this one (core's `neighboursOf`), oldest first. */
  readonly before: ReadonlyArray<string>
  /** The offer is accepted: the recipient may read contact details. */
  readonly contactsShown: boolean
}

/** What a push about a request that matched a seller's alert says: what, where, for how much. */
interface RequestFacts {
  readonly category: Category
  readonly productBrand: string | null
  readonly productModel: string | null
  readonly locationCity: string | null
  readonly budgetMin: number
  readonly budgetMax: number
}

/** The rows a notification is about, when they could be read. */
export type Facts =
  | { readonly kind: "offer"; readonly offer: OfferFacts }
  | { readonly kind: "message"; readonly message: MessageFacts }
  | { readonly kind: "request"; readonly request: RequestFacts }
  | { readonly kind: "matchSummary"; readonly count: number }
  | { readonly kind: "rejection"; readonly reason: string | null }
  | { readonly kind: "unknown" }

export interface PushText {
  readonly title: string
  readonly body: string
}

const previewLength = 200

const productOf = (offer: Pick<OfferFacts, "productBrand" | "productModel" | "category">, language: Language) => {
  const named = [offer.productBrand, offer.productModel].filter((part) => part !== null).join(" ")
  if (named !== "") return named
  return translate(offer.category === "phone" ? "push_a_phone" : "push_an_accessory", language)
}

const priceOf = (price: number) => price.toLocaleString("en-US", { maximumFractionDigits: 2 })

const preview = (text: string) =>
  text.length <= previewLength ? text : `${text.slice(0, previewLength - 1).trimEnd()}…`

/** How a push names a party: "Deleted user" once they deleted their account, else their name or `fallback`. */
const partyName = (name: string | null, deleted: boolean, fallback: string, language: Language) =>
  deleted ? translate("push_deleted_user", language) : (name ?? translate(fallback, language))

/**
 * Title and body of a push in the recipient's language. `recipientId` tells the two sides of an accepted offer
 * apart. Without the facts (rows gone), a generic body points to the app.
 */
export const wordPush = (type: PushType, recipientId: string, facts: Facts, language: Language): PushText => {
  const t = (key: string, params?: Readonly<Record<string, string>>) => translate(key, language, params)
  if (facts.kind === "offer") {
    const { offer } = facts
    const params = {
      seller: partyName(offer.sellerName, offer.sellerDeleted, "push_the_seller", language),
      buyer: partyName(offer.buyerName, offer.buyerDeleted, "push_the_buyer", language),
      product: productOf(offer, language),
      price: priceOf(offer.price)
    }
    switch (type) {
      case "offer_created":
        return { title: t("push_offer_created_title"), body: t("push_offer_created_body", params) }
      case "offer_countered":
        return { title: t("push_offer_countered_title"), body: t("push_offer_countered_body", params) }
      case "offer_revised":
        return { title: t("push_offer_revised_title"), body: t("push_offer_revised_body", params) }
      case "offer_accepted": {
        const side = recipientId === offer.sellerId ? "seller" : "buyer"
        return {
          title: t(`push_offer_accepted_title_${side}`),
          body: t(`push_offer_accepted_body_${side}`, params)
        }
      }
      case "rating_prompt":
        return { title: t("push_rating_prompt_title"), body: t("push_rating_prompt_body", params) }
      default:
        break
    }
  }
  if (facts.kind === "request" && type === "request_match") {
    const { request } = facts
    return {
      title: t("push_request_match_title"),
      body: t("push_request_match_body", {
        product: productOf(request, language),
        city: request.locationCity ?? "",
        budget_min: priceOf(request.budgetMin),
        budget_max: priceOf(request.budgetMax)
      })
    }
  }
  if (facts.kind === "matchSummary" && type === "request_match_summary") {
    return {
      title: t("push_request_match_summary_title"),
      body: translate("push_request_match_summary_body", language, { count: facts.count })
    }
  }
  if (facts.kind === "rejection" && type === "seller_profile_rejected") {
    return {
      title: t("push_seller_profile_rejected_title"),
      body:
        facts.reason === null
          ? t("push_seller_profile_rejected_no_reason_body")
          : t("push_seller_profile_rejected_body", { reason: preview(facts.reason) })
    }
  }
  if (facts.kind === "message" && type === "message") {
    const sender = partyName(facts.message.senderName, facts.message.senderDeleted, "push_the_seller", language)
    return {
      title: t("push_message_title", { sender }),
      // The push goes to the recipient: contact details stay masked until the offer is accepted.
      body:
        facts.message.hasAttachments && facts.message.messageText === ""
          ? t("push_message_photo")
          : t("push_message_body", {
              text: preview(
                facts.message.contactsShown
                  ? facts.message.messageText
                  : maskContactsAmong(facts.message.messageText, facts.message.before, []).text
              )
            })
    }
  }
  const title =
    type === "offer_accepted"
      ? t("push_offer_accepted_title_buyer")
      : type === "message"
        ? t("push_message_title", { sender: t("push_the_seller") })
        : t(`push_${type}_title`)
  // A request's own pushes need no facts: they say what happened and what the buyer can do.
  if (type === "request_expiring" || type === "request_expired") return { title, body: t(`push_${type}_body`) }
  if (type === "seller_profile_rejected") return { title, body: t("push_seller_profile_rejected_no_reason_body") }
  return { title, body: t("push_details_in_app") }
}

/** A device of a recipient. */
export interface RecipientDevice {
  readonly platform: Platform
  readonly pushToken: string
}

/** Whom a notification goes to: their language and devices. */
export interface Recipient {
  readonly language: Language
  readonly devices: ReadonlyArray<RecipientDevice>
}

/** The fields of a claimed notification that tell what it is about. */
interface NotificationSubject {
  readonly id: string
  readonly type: PushType
  readonly data: Readonly<Record<string, string>>
  readonly messageId: string | undefined
}

interface OfferRow extends OfferFacts {
  readonly offerId: string
  readonly dealId: string | null
}

interface RequestRow extends RequestFacts {
  readonly requestId: string
}

interface MessageRow extends MessageFacts {
  readonly messageId: string
}

/** The ids a batch names, each once; they were stored by this server with the notification, never by a client. */
const uniqueIds = (ids: ReadonlyArray<string | undefined>) => [
  ...new Set(ids.filter((id): id is string => id !== undefined))
]

/**
 * Reads, for a batch of notifications at once, what they are about and whom they go to, so that wording a
 * batch costs a few queries whatever its size.
 */
export class NotificationContent extends Effect.Service<NotificationContent>()("Notifications/Content", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Language and devices of each user that still exists, by user id. */
    const recipientsOf = (userIds: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, Recipient>, SqlError> => {
      const ids = uniqueIds(userIds)
      if (ids.length === 0) return Effect.succeed(new Map())
      return sql<{ userId: string; language: Language; platform: Platform | null; pushToken: string | null }>`
        SELECT u.id AS "userId", u.language, d.platform, d.push_token AS "pushToken"
        FROM users u LEFT JOIN device_tokens d ON d.user_id = u.id
        WHERE u.id = ANY(${textArrayLiteral(ids)}::uuid[])
        ORDER BY d.created_at, d.id`.pipe(
        Effect.map((rows) => {
          const recipients = new Map<string, { language: Language; devices: Array<RecipientDevice> }>()
          for (const row of rows) {
            const recipient = recipients.get(row.userId) ?? { language: row.language, devices: [] }
            recipients.set(row.userId, recipient)
            if (row.platform !== null && row.pushToken !== null) {
              recipient.devices.push({ platform: row.platform, pushToken: row.pushToken })
            }
          }
          return recipients
        })
      )
    }

    // A seller is named by their business; a buyer by their name, which may not be set.
    const offerRows = (offerIds: ReadonlyArray<string>, dealIds: ReadonlyArray<string>) => {
      const about = [
        ...(offerIds.length > 0 ? [sql`o.id IN ${sql.in(offerIds)}`] : []),
        ...(dealIds.length > 0 ? [sql`d.id IN ${sql.in(dealIds)}`] : [])
      ]
      if (about.length === 0) return Effect.succeed<ReadonlyArray<OfferRow>>([])
      return sql<OfferRow>`
        SELECT o.id AS "offerId", d.id AS "dealId", o.seller_id AS "sellerId",
               COALESCE(sp.business_name, su.name) AS "sellerName", bu.name AS "buyerName",
               su.deleted AS "sellerDeleted", bu.deleted AS "buyerDeleted", o.price, r.category,
               r.product_brand AS "productBrand", r.product_model AS "productModel"
        FROM offers o
        JOIN buy_requests r ON r.id = o.request_id
        JOIN users su ON su.id = o.seller_id
        JOIN users bu ON bu.id = r.buyer_id
        LEFT JOIN seller_profiles sp ON sp.user_id = o.seller_id
        LEFT JOIN deals d ON d.offer_id = o.id
        WHERE ${sql.or(about)}`
    }

    // The price a counter proposed, which its push states instead of the offer's.
    const counterPrices = (counterIds: ReadonlyArray<string>) =>
      counterIds.length === 0
        ? Effect.succeed<ReadonlyArray<{ readonly counterId: string; readonly price: number }>>([])
        : sql<{ readonly counterId: string; readonly price: number }>`
            SELECT id AS "counterId", price FROM offer_counters WHERE id IN ${sql.in(counterIds)}`

    const messageRows = (messageIds: ReadonlyArray<string>) =>
      messageIds.length === 0
        ? Effect.succeed<ReadonlyArray<MessageRow>>([])
        : sql<Omit<MessageRow, "contactsShown"> & { readonly offerStatus: OfferStatus }>`
            SELECT m.id AS "messageId", m.message_text AS "messageText", o.status AS "offerStatus",
                   CASE WHEN m.sender_id = c.seller_id THEN COALESCE(sp.business_name, u.name) ELSE u.name END
                     AS "senderName", u.deleted AS "senderDeleted",
                   EXISTS (SELECT 1 FROM images i WHERE i.holder_id = m.id AND i.holder_kind = 'message')
                     AS "hasAttachments",
                   ARRAY(
                     SELECT s.message_text FROM (
                       SELECT p.message_text, p.seq FROM messages p
                       WHERE p.conversation_id = m.conversation_id AND p.sender_id = m.sender_id
                         AND p.seq < m.seq AND p.seq >= m.seq - ${SPREAD_SEQS}
                         AND p.created_at >= m.created_at - make_interval(mins => ${SPREAD_MINUTES})
                       ORDER BY p.seq DESC LIMIT ${SPREAD_MESSAGES}
                     ) s ORDER BY s.seq
                   ) AS "before"
            FROM messages m
            JOIN conversations c ON c.id = m.conversation_id
            JOIN offers o ON o.id = c.offer_id
            JOIN users u ON u.id = m.sender_id
            LEFT JOIN seller_profiles sp ON sp.user_id = m.sender_id
            WHERE m.id IN ${sql.in(messageIds)}`.pipe(
            Effect.map((rows) =>
              rows.map(
                ({ offerStatus, ...row }): MessageRow => ({ ...row, contactsShown: contactsShownAt(offerStatus) })
              )
            )
          )

    const requestRows = (requestIds: ReadonlyArray<string>) =>
      requestIds.length === 0
        ? Effect.succeed<ReadonlyArray<RequestRow>>([])
        : sql<{
            requestId: string
            category: Category
            productBrand: string | null
            productModel: string | null
            locationCity: string | null
            budgetMin: string | number
            budgetMax: string | number
          }>`
            SELECT id AS "requestId", category, product_brand AS "productBrand", product_model AS "productModel",
                   location_city AS "locationCity", budget_min AS "budgetMin", budget_max AS "budgetMax"
            FROM buy_requests WHERE id IN ${sql.in(requestIds)}`.pipe(
            Effect.map((rows) =>
              rows.map((row) => ({ ...row, budgetMin: Number(row.budgetMin), budgetMax: Number(row.budgetMax) }))
            )
          )

    // The reason an applicant was rejected with, which their push quotes.
    const rejectionReasons = (profileIds: ReadonlyArray<string>) =>
      profileIds.length === 0
        ? Effect.succeed<ReadonlyArray<{ readonly profileId: string; readonly reason: string | null }>>([])
        : sql<{ readonly profileId: string; readonly reason: string | null }>`
            SELECT id AS "profileId", rejection_reason AS "reason" FROM seller_profiles
            WHERE id IN ${sql.in(profileIds)}`

    /** Answers, for the batch, what each of its notifications is about ("unknown" when the rows are gone). */
    const factsFor = (
      notifications: ReadonlyArray<NotificationSubject>
    ): Effect.Effect<(notification: NotificationSubject) => Facts, SqlError> =>
      Effect.gen(function* () {
        const isAboutOffer = (n: NotificationSubject) =>
          n.type === "offer_created" ||
          n.type === "offer_accepted" ||
          n.type === "offer_countered" ||
          n.type === "offer_revised"
        const offers = yield* offerRows(
          uniqueIds(notifications.filter(isAboutOffer).map((n) => n.data.offer_id)),
          uniqueIds(notifications.filter((n) => n.type === "rating_prompt").map((n) => n.data.deal_id))
        )
        const messages = yield* messageRows(
          uniqueIds(notifications.filter((n) => n.type === "message").map((n) => n.messageId))
        )
        const requests = yield* requestRows(
          uniqueIds(notifications.filter((n) => n.type === "request_match").map((n) => n.data.request_id))
        )
        const counters = yield* counterPrices(
          uniqueIds(notifications.filter((n) => n.type === "offer_countered").map((n) => n.data.counter_id))
        )
        const rejections = yield* rejectionReasons(
          uniqueIds(
            notifications.filter((n) => n.type === "seller_profile_rejected").map((n) => n.data.seller_profile_id)
          )
        )
        const reasonOf = new Map(rejections.map((row) => [row.profileId, row.reason]))
        const counterPrice = new Map(counters.map((row) => [row.counterId, Number(row.price)]))
        const byRequest = new Map(requests.map((row) => [row.requestId, row]))
        const byOffer = new Map(offers.map((row) => [row.offerId, row]))
        const byDeal = new Map(offers.flatMap((row) => (row.dealId === null ? [] : [[row.dealId, row] as const])))
        const byMessage = new Map(messages.map((row) => [row.messageId, row]))
        const unknown: Facts = { kind: "unknown" }
        const asOffer = (row: OfferRow | undefined): Facts =>
          row === undefined ? unknown : { kind: "offer", offer: row }

        return (notification) => {
          switch (notification.type) {
            case "offer_created":
            case "offer_accepted":
            case "offer_revised":
              return asOffer(byOffer.get(notification.data.offer_id ?? ""))
            case "offer_countered": {
              const offer = byOffer.get(notification.data.offer_id ?? "")
              const price = counterPrice.get(notification.data.counter_id ?? "")
              return offer === undefined || price === undefined ? unknown : asOffer({ ...offer, price })
            }
            case "rating_prompt":
              return asOffer(byDeal.get(notification.data.deal_id ?? ""))
            case "message": {
              const message = byMessage.get(notification.messageId ?? "")
              return message === undefined ? unknown : { kind: "message", message }
            }
            case "request_match": {
              const request = byRequest.get(notification.data.request_id ?? "")
              return request === undefined ? unknown : { kind: "request", request }
            }
            case "request_match_summary":
              return { kind: "matchSummary", count: Number(notification.data.match_count ?? "0") }
            case "seller_profile_rejected": {
              const reason = reasonOf.get(notification.data.seller_profile_id ?? "")
              return reason === undefined ? unknown : { kind: "rejection", reason }
            }
            case "request_expiring":
            case "request_expired":
              return unknown
          }
        }
      })

    return { recipientsOf, factsFor } as const
  })
}) {}
