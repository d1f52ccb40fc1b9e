import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition, type Transitioned } from "../shared/Transition.js"
import { Category, ConditionPref } from "../shared/Values.js"
import { RequestAlreadyClosed, RequestAlreadyExtended, RequestExpired, RequestNotActive } from "./Errors.js"

/**
 * Where a buy request stands: `active` takes offers, `closed` was closed by its buyer or by accepting an offer,
 * `expired` reached its `expiresAt` unclosed. Only `active` requests take or accept offers.
 */
export const RequestStatus = Schema.Literal("active", "closed", "expired")
export type RequestStatus = typeof RequestStatus.Type

/** A buyer's request for a product, with a budget range and a location. */
export const BuyRequest = Schema.Struct({
  id: Schema.UUID,
  buyerId: Schema.UUID,
  category: Category,
  productBrand: Schema.NullOr(Schema.String),
  productModel: Schema.NullOr(Schema.String),
  conditionPref: ConditionPref,
  budgetMin: Schema.Number,
  budgetMax: Schema.Number,
  locationDistrict: Schema.String,
  locationCity: Schema.NullOr(Schema.String),
  notes: Schema.NullOr(Schema.String),
  status: RequestStatus,
  offerCount: Schema.Int,
  createdAt: Schema.DateFromSelf,
  closedAt: Schema.NullOr(Schema.DateFromSelf),
  expiresAt: Schema.DateFromSelf.annotations({
    description: "When an active request becomes `expired` (REQUEST_TTL_DAYS after creation; later once extended)"
  }),
  extendedAt: Schema.NullOr(Schema.DateFromSelf).annotations({
    description: "When the buyer extended it (once at most)"
  }),
  /** When the reminder push (a day before expiry) was queued, or null. */
  remindedAt: Schema.NullOr(Schema.DateFromSelf)
})
export interface BuyRequest extends Schema.Schema.Type<typeof BuyRequest> {}

/**
 * What a buyer gives to create a request: every field but those {@link createRequest} sets (status, offer count,
 * times).
 */
export type NewBuyRequest = Omit<
  BuyRequest,
  "status" | "offerCount" | "createdAt" | "closedAt" | "expiresAt" | "extendedAt" | "remindedAt"
>

const DAY_MS = 24 * 60 * 60 * 1000

/** How long a request stays active without being closed (REQUEST_TTL_DAYS), by default. */
export const DEFAULT_REQUEST_TTL_DAYS = 30

/** How long before its expiry the buyer is reminded. */
export const REQUEST_REMINDER_BEFORE_MS = DAY_MS

/** A new request is active with no offers, until `ttlDays` from now. */
export const createRequest = (
  input: NewBuyRequest,
  now: Date,
  ttlDays: number = DEFAULT_REQUEST_TTL_DAYS
): Transition<BuyRequest, never> =>
  moved(
    {
      ...input,
      status: "active",
      offerCount: 0,
      createdAt: now,
      closedAt: null,
      expiresAt: new Date(now.getTime() + ttlDays * DAY_MS),
      extendedAt: null,
      remindedAt: null
    },
    [DomainEvent.RequestCreated({ requestId: input.id, buyerId: input.buyerId })]
  )

/**
 * The request as the API shows it at `now`: an active request past its `expiresAt` is `expired` already,
 * whether or not the expiry job has written that yet.
 */
export const effectiveRequest = (request: BuyRequest, now: Date): BuyRequest =>
  request.status === "active" && request.expiresAt.getTime() <= now.getTime()
    ? { ...request, status: "expired" }
    : request

/** The owner closes an active request; a closed one cannot be closed again, nor an expired one. */
export const closeRequest = (
  request: BuyRequest,
  now: Date,
  reason: "owner" | "accepted" = "owner"
): Transition<BuyRequest, RequestAlreadyClosed | RequestExpired> =>
  request.status === "closed"
    ? Either.left(new RequestAlreadyClosed())
    : request.status === "expired"
      ? Either.left(new RequestExpired())
      : moved({ ...request, status: "closed", closedAt: now }, [
          DomainEvent.RequestClosed({ requestId: request.id, buyerId: request.buyerId, reason })
        ])

/** The buyer extends an active request once, by `ttlDays` from its current expiry. */
export const extendRequest = (
  request: BuyRequest,
  now: Date,
  ttlDays: number = DEFAULT_REQUEST_TTL_DAYS
): Transition<BuyRequest, RequestAlreadyClosed | RequestExpired | RequestAlreadyExtended> => {
  if (request.status === "closed") return Either.left(new RequestAlreadyClosed())
  if (request.status === "expired") return Either.left(new RequestExpired())
  if (request.extendedAt !== null) return Either.left(new RequestAlreadyExtended())
  const expiresAt = new Date(request.expiresAt.getTime() + ttlDays * DAY_MS)
  // A new expiry owes a new reminder a day before it.
  return moved({ ...request, expiresAt, extendedAt: now, remindedAt: null }, [
    DomainEvent.RequestExtended({ requestId: request.id, buyerId: request.buyerId, expiresAt: expiresAt.toISOString() })
  ])
}

/**
 * An active request past its expiry becomes `expired` (the caller rejects its pending offers); the buyer is
 * told. Anything else is left as it is (`undefined`).
 */
export const expireRequest = (request: BuyRequest, now: Date): Transitioned<BuyRequest> | undefined =>
  request.status === "active" && request.expiresAt.getTime() <= now.getTime()
    ? {
        state: { ...request, status: "expired" },
        events: [DomainEvent.RequestExpired({ requestId: request.id, buyerId: request.buyerId })]
      }
    : undefined

/**
 * An active request within a day of its expiry, not yet reminded, is marked reminded and the buyer gets a
 * push; anything else is left as it is (`undefined`).
 */
export const remindOfExpiry = (request: BuyRequest, now: Date): Transitioned<BuyRequest> | undefined =>
  request.status === "active" &&
  request.remindedAt === null &&
  request.expiresAt.getTime() > now.getTime() &&
  request.expiresAt.getTime() - now.getTime() <= REQUEST_REMINDER_BEFORE_MS
    ? {
        state: { ...request, remindedAt: now },
        events: [
          DomainEvent.RequestExpiring({
            requestId: request.id,
            buyerId: request.buyerId,
            expiresAt: request.expiresAt.toISOString()
          })
        ]
      }
    : undefined

/** Offers can only be made on, and accepted for, active requests. */
export const ensureActive = (request: BuyRequest): Either.Either<BuyRequest, RequestNotActive> =>
  request.status === "active" ? Either.right(request) : Either.left(new RequestNotActive())

/** Whether a price lies outside the request's budget (a warning, never a rejection). */
export const priceOutsideBudget = (request: Pick<BuyRequest, "budgetMin" | "budgetMax">, price: number) =>
  price < request.budgetMin || price > request.budgetMax
