import * as Data from "effect/Data"

/**
 * Domain events raised by transitions. The embedder appends them to its outbox (`EventOutbox`) in the same
 * transaction as the change that raised them; notifications are derived from them.
 */
export type DomainEvent = Data.TaggedEnum<{
  RequestCreated: { readonly requestId: string; readonly buyerId: string }
  RequestClosed: { readonly requestId: string; readonly buyerId: string; readonly reason: "owner" | "accepted" }
  RequestExtended: { readonly requestId: string; readonly buyerId: string; readonly expiresAt: string }
  /** A day before expiry: the buyer is reminded (push `request_expiring`). */
  RequestExpiring: { readonly requestId: string; readonly buyerId: string; readonly expiresAt: string }
  /** The request expired unclosed (push `request_expired`); its pending offers are rejected with it. */
  RequestExpired: { readonly requestId: string; readonly buyerId: string }
  /** The offer's `valid_until` passed while it was pending. */
  OfferExpired: { readonly offerId: string; readonly requestId: string; readonly sellerId: string }
  OfferCreated: {
    readonly offerId: string
    readonly requestId: string
    readonly sellerId: string
    readonly buyerId: string
    readonly conversationId: string
  }
  /** The buyer proposed another price (push `offer_countered` to the seller). */
  OfferCountered: {
    readonly offerId: string
    readonly requestId: string
    readonly sellerId: string
    readonly buyerId: string
    readonly conversationId: string
    readonly counterId: string
  }
  /** The seller changed the offer; it is now at `revision` (push `offer_revised` to the buyer). */
  OfferRevised: {
    readonly offerId: string
    readonly requestId: string
    readonly sellerId: string
    readonly buyerId: string
    readonly conversationId: string
    readonly revision: number
  }
  OfferWithdrawn: { readonly offerId: string; readonly requestId: string; readonly sellerId: string }
  OfferRejected: { readonly offerId: string; readonly requestId: string; readonly sellerId: string }
  OfferAccepted: {
    readonly offerId: string
    readonly requestId: string
    readonly sellerId: string
    readonly buyerId: string
    readonly dealId: string
  }
  DealCreated: {
    readonly dealId: string
    readonly requestId: string
    readonly offerId: string
    readonly buyerId: string
    readonly sellerId: string
  }
  DealCompleted: { readonly dealId: string; readonly buyerId: string; readonly sellerId: string }
  DealCancelled: {
    readonly dealId: string
    readonly buyerId: string
    readonly sellerId: string
    readonly reason: string
  }
  RatingSubmitted: {
    readonly ratingId: string
    readonly dealId: string
    readonly sellerId: string
    readonly rating: number
  }
  ReportFiled: { readonly reportId: string; readonly reporterId: string; readonly reportedUserId: string }
  ReportResolved: { readonly reportId: string; readonly action: string; readonly status: string }
  SellerProfileApplied: { readonly profileId: string; readonly userId: string }
  SellerProfileApproved: { readonly profileId: string; readonly userId: string }
  SellerProfileRejected: { readonly profileId: string; readonly userId: string }
  SellerSuspended: { readonly profileId: string; readonly userId: string }
  SellerReinstated: { readonly profileId: string; readonly userId: string }
  /** `recipientOnline`: a socket of the recipient was subscribed to the conversation when it was sent (no push then). */
  MessageSent: {
    readonly messageId: string
    readonly conversationId: string
    readonly senderId: string
    readonly recipientId: string
    readonly recipientOnline: boolean
  }
}>
export const DomainEvent = Data.taggedEnum<DomainEvent>()
/** The name of a kind of domain event (`"OfferAccepted"`, …), as the outbox stores it. */
export type DomainEventTag = DomainEvent["_tag"]
