import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DealNotActive } from "./Errors.js"
import { DomainEvent } from "./Events.js"
import { moved, type Transition } from "./Transition.js"

export const DealStatus = Schema.Literal("accepted", "completed", "cancelled")
export type DealStatus = typeof DealStatus.Type

/** The agreement made when a buyer accepts an offer. */
export interface Deal {
  readonly id: string
  readonly requestId: string
  readonly offerId: string
  readonly buyerId: string
  readonly sellerId: string
  readonly conversationId: string
  readonly status: DealStatus
  readonly createdAt: Date
  readonly completedAt: Date | null
  readonly cancelledAt: Date | null
  readonly cancelReason: string | null
  readonly cancelDescription: string | null
}

/** The buyer completes an accepted deal; the buyer is then asked to rate the seller. */
export const completeDeal = (deal: Deal, now: Date): Transition<Deal, DealNotActive> =>
  deal.status !== "accepted"
    ? Either.left(new DealNotActive())
    : moved({ ...deal, status: "completed", completedAt: now }, [
        DomainEvent.DealCompleted({ dealId: deal.id, buyerId: deal.buyerId, sellerId: deal.sellerId })
      ])

/** The buyer cancels an accepted deal. The request stays closed. */
export const cancelDeal = (
  deal: Deal,
  cancel: { readonly reason: string; readonly description: string | null },
  now: Date
): Transition<Deal, DealNotActive> =>
  deal.status !== "accepted"
    ? Either.left(new DealNotActive())
    : moved(
        {
          ...deal,
          status: "cancelled",
          cancelledAt: now,
          cancelReason: cancel.reason,
          cancelDescription: cancel.description
        },
        [
          DomainEvent.DealCancelled({
            dealId: deal.id,
            buyerId: deal.buyerId,
            sellerId: deal.sellerId,
            reason: cancel.reason
          })
        ]
      )
