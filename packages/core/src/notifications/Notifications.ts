import type { PushType } from "../platform/PushSender.js"
import type { DomainEvent } from "../shared/Events.js"

/**
 * The ids a push carries to the device, as strings. The keys a device reads are the transport's to choose
 * (the server sends them in snake_case).
 */
export interface NotificationData {
  readonly requestId?: string
  readonly offerId?: string
  readonly dealId?: string
  readonly conversationId?: string
  /** The counter an `offer_countered` push is about. */
  readonly counterId?: string
  /** How many matching requests a `request_match_summary` push sums up (held in the seller's quiet hours). */
  readonly matchCount?: string
  /** The seller profile a `seller_profile_rejected` push is about. */
  readonly sellerProfileId?: string
}

/** A push owed to one user because of a domain event; worded and delivered later, in the user's language. */
export interface OwedNotification {
  readonly recipientId: string
  readonly type: PushType
  readonly data: NotificationData
  /** The message a `message` notification quotes; used for wording, not sent as data. */
  readonly messageId?: string
  /**
   * Notifications with one key reach their recipient at most once an hour: a repeat within the hour of the last
   * one queued is dropped. Unset: every one is queued.
   */
  readonly collapseKey?: string
}

const none: ReadonlyArray<OwedNotification> = []

/**
 * The notifications a domain event owes: `offer_created` to the buyer of the request, `offer_accepted` to the
 * buyer and the seller, `message` to a recipient who was not online when it was sent, `rating_prompt` to the
 * buyer of a completed deal, `request_expiring` (a day before) and `request_expired` to the buyer of a request,
 * `offer_countered` to the seller of a countered offer and `offer_revised` to the buyer of a revised one,
 * `seller_profile_rejected` to an applicant whose application an admin rejected. Every
 * other event owes none.
 * `offer_created` is collapsed per request and seller (see {@link OwedNotification.collapseKey}).
 */
export const notificationsFor = (event: DomainEvent): ReadonlyArray<OwedNotification> => {
  switch (event._tag) {
    case "OfferCreated":
      return [
        {
          recipientId: event.buyerId,
          type: "offer_created",
          data: { requestId: event.requestId, offerId: event.offerId, conversationId: event.conversationId },
          // A seller withdrawing and offering again on one request buzzes the buyer once an hour, not each time.
          collapseKey: `offer_created:${event.requestId}:${event.sellerId}`
        }
      ]
    case "OfferAccepted": {
      const data = { requestId: event.requestId, offerId: event.offerId, dealId: event.dealId }
      return [
        { recipientId: event.buyerId, type: "offer_accepted", data },
        { recipientId: event.sellerId, type: "offer_accepted", data }
      ]
    }
    case "OfferCountered":
      return [
        {
          recipientId: event.sellerId,
          type: "offer_countered",
          data: {
            requestId: event.requestId,
            offerId: event.offerId,
            conversationId: event.conversationId,
            counterId: event.counterId
          }
        }
      ]
    case "OfferRevised":
      return [
        {
          recipientId: event.buyerId,
          type: "offer_revised",
          data: { requestId: event.requestId, offerId: event.offerId, conversationId: event.conversationId }
        }
      ]
    case "MessageSent":
      return event.recipientOnline
        ? none
        : [
            {
              recipientId: event.recipientId,
              type: "message",
              data: { conversationId: event.conversationId },
              messageId: event.messageId
            }
          ]
    case "RequestExpiring":
      return [{ recipientId: event.buyerId, type: "request_expiring", data: { requestId: event.requestId } }]
    case "RequestExpired":
      return [{ recipientId: event.buyerId, type: "request_expired", data: { requestId: event.requestId } }]
    case "DealCompleted":
      return [{ recipientId: event.buyerId, type: "rating_prompt", data: { dealId: event.dealId } }]
    case "SellerProfileRejected":
      return [
        { recipientId: event.userId, type: "seller_profile_rejected", data: { sellerProfileId: event.profileId } }
      ]
    default:
      return none
  }
}
