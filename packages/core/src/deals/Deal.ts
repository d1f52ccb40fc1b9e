import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition } from "../shared/Transition.js"
import { DealNotActive } from "./Errors.js"

/**
 * Where a deal stands: `accepted` from the offer's acceptance, then `completed` or `cancelled` by the buyer; only
 * an `accepted` deal can be completed or cancelled.
 */
export const DealStatus = Schema.Literal("accepted", "completed", "cancelled")
export type DealStatus = typeof DealStatus.Type

/** The agreement made when a buyer accepts an offer. */
export const Deal = Schema.Struct({
  id: Schema.UUID,
  requestId: Schema.UUID,
  offerId: Schema.UUID,
  buyerId: Schema.UUID,
  sellerId: Schema.UUID,
  conversationId: Schema.UUID,
  status: DealStatus,
  createdAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf),
  cancelledAt: Schema.NullOr(Schema.DateFromSelf),
  cancelReason: Schema.NullOr(Schema.String),
  cancelDescription: Schema.NullOr(Schema.String)
})
export interface Deal extends Schema.Schema.Type<typeof Deal> {}

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
