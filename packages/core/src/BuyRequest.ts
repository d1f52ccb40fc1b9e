import { Either, Schema } from "effect"
import { RequestAlreadyClosed, RequestNotActive } from "./Errors.js"
import { DomainEvent } from "./Events.js"
import { moved, type Transition } from "./Transition.js"
import type { Category, ConditionPref } from "./Values.js"

export const RequestStatus = Schema.Literal("active", "closed")
export type RequestStatus = typeof RequestStatus.Type

/** A buyer's request for a product, with a budget range and a location. */
export interface BuyRequest {
  readonly id: string
  readonly buyerId: string
  readonly category: Category
  readonly productBrand: string | null
  readonly productModel: string | null
  readonly conditionPref: ConditionPref
  readonly budgetMin: number
  readonly budgetMax: number
  readonly locationDistrict: string
  readonly locationCity: string | null
  readonly notes: string | null
  readonly status: RequestStatus
  readonly offerCount: number
  readonly createdAt: Date
  readonly closedAt: Date | null
}

export type NewBuyRequest = Omit<BuyRequest, "status" | "offerCount" | "createdAt" | "closedAt">

/** A new request is active with no offers. */
export const createRequest = (input: NewBuyRequest, now: Date): Transition<BuyRequest, never> =>
  moved({ ...input, status: "active", offerCount: 0, createdAt: now, closedAt: null }, [
    DomainEvent.RequestCreated({ requestId: input.id, buyerId: input.buyerId })
  ])

/** The owner closes an active request; a closed one cannot be closed again. */
export const closeRequest = (
  request: BuyRequest,
  now: Date,
  reason: "owner" | "accepted" = "owner"
): Transition<BuyRequest, RequestAlreadyClosed> =>
  request.status === "closed"
    ? Either.left(new RequestAlreadyClosed())
    : moved({ ...request, status: "closed", closedAt: now }, [
        DomainEvent.RequestClosed({ requestId: request.id, buyerId: request.buyerId, reason })
      ])

/** Offers can only be made on, and accepted for, active requests. */
export const ensureActive = (request: BuyRequest): Either.Either<BuyRequest, RequestNotActive> =>
  request.status === "active" ? Either.right(request) : Either.left(new RequestNotActive())

/** Whether a price lies outside the request's budget (a warning, never a rejection). */
export const priceOutsideBudget = (request: Pick<BuyRequest, "budgetMin" | "budgetMax">, price: number) =>
  price < request.budgetMin || price > request.budgetMax
