import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { attachImages, ImageIds, MAX_REQUEST_PHOTOS } from "../images/Images.js"
import { ImageRepo } from "../images/Repo.js"
import { expireLapsedOffers, rejectPendingOffers } from "../offers/Offer.js"
import { OfferRepo } from "../offers/Repo.js"
import { Ids } from "../platform/Ids.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { FreeText, Money, OneOf, Optional, Text } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import { Category, ConditionPref } from "../shared/Values.js"
import type { User } from "../users/User.js"
import {
  closeRequest,
  createRequest,
  DEFAULT_REQUEST_TTL_DAYS,
  effectiveRequest,
  extendRequest,
  type NewBuyRequest
} from "./BuyRequest.js"
import { requireRequestOwner } from "./Policy.js"
import { RequestRepo } from "./Repo.js"

/** The condition a buyer who names none accepts. */
const ANY_CONDITION = "any" as const

/**
 * What a buyer writes to post a request, with the rule of each field. The budget's order (`budgetMax` not below
 * `budgetMin`) is checked where the fields are read from the wire, so the failure names the wire's field.
 */
export const RequestInput = Schema.Struct({
  category: OneOf(...Category.literals),
  productBrand: Optional(Text(1, 100)),
  productModel: Optional(Text(1, 100)),
  // Absent or null: the one place this default is written; the OpenAPI document shows it.
  conditionPref: Schema.optionalWith(OneOf(...ConditionPref.literals).annotations({ default: ANY_CONDITION }), {
    nullable: true,
    default: () => ANY_CONDITION
  }),
  budgetMin: Money,
  budgetMax: Money,
  locationDistrict: Text(1, 100),
  locationCity: Optional(Text(1, 100)),
  notes: Optional(FreeText(0, 2000)),
  /** The buyer's own unattached images, shown in this order (docs/DECISIONS.md, "Photos"). */
  photoIds: Optional(ImageIds(MAX_REQUEST_PHOTOS))
})
export type RequestInput = typeof RequestInput.Type

/** The new request of `buyerId` from what they wrote; a text left out is stored as null. */
const newRequest = (id: string, buyerId: string, input: RequestInput): NewBuyRequest => ({
  id,
  buyerId,
  category: input.category,
  productBrand: input.productBrand ?? null,
  productModel: input.productModel ?? null,
  conditionPref: input.conditionPref,
  budgetMin: input.budgetMin,
  budgetMax: input.budgetMax,
  locationDistrict: input.locationDistrict,
  locationCity: input.locationCity ?? null,
  notes: input.notes ?? null
})

/**
 * How long a request stays active: `ttlDays` from its creation, and as much again once extended. Read when
 * the {@link Requests} layer is built; a required setting, so a lifetime configured elsewhere cannot be
 * silently replaced by the default.
 */
export class RequestSettings extends Context.Tag("@talab/core/RequestSettings")<
  RequestSettings,
  { readonly ttlDays: number }
>() {
  /** {@link DEFAULT_REQUEST_TTL_DAYS} days. */
  static readonly Default = Layer.succeed(RequestSettings, { ttlDays: DEFAULT_REQUEST_TTL_DAYS })
}

const foundRequest = requireFound("request")

/** The buy-request workflows: post, close, extend. */
export class Requests extends Effect.Service<Requests>()("@talab/core/Requests", {
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const images = yield* ImageRepo
    const { ttlDays } = yield* RequestSettings

    /**
     * Requests of several buyers posted at once, in one transaction: all are stored, or none (each may then be
     * posted alone with {@link create}). Answers them in the order given.
     */
    const createAll = (posts: ReadonlyArray<{ readonly buyer: User; readonly input: RequestInput }>) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const created = yield* Effect.forEach(posts, ({ buyer, input }) =>
            Effect.gen(function* () {
              const { state, events } = yield* createRequest(newRequest(yield* ids.next, buyer.id, input), at, ttlDays)
              yield* attachImages(images, buyer, input.photoIds, { kind: "request", id: state.id }, "photo_ids")
              return { state, events }
            })
          )
          yield* requests.insertAll(created.map(({ state }) => state))
          yield* outbox.append(
            created.flatMap(({ events }) => events),
            at
          )
          return created.map(({ state }) => state)
        })
      )

    /** A buyer posts a request: active, with no offers, until `ttlDays` from now. */
    const create = (buyer: User, input: RequestInput) =>
      Effect.map(createAll([{ buyer, input }]), ([request]) => request!)

    /**
     * The owner closes an active request; its pending offers are rejected with it. The request is locked
     * first, like every transition that touches its offers, so a racing offer or accept waits.
     */
    const close = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const locked = yield* foundRequest(yield* requests.lock(id))
          yield* requireRequestOwner(locked, caller)
          // Offers that lapsed are expired, not rejected, and leave the count; an expired request is REQUEST_EXPIRED.
          const lapsed = expireLapsedOffers(locked, yield* offers.lockByRequest(locked.id), at)
          const closed = yield* closeRequest(effectiveRequest(lapsed.request, at), at)
          const { rejected, events } = rejectPendingOffers(lapsed.offers)
          yield* offers.updateStatus([...lapsed.expired, ...rejected], at)
          yield* requests.update(closed.state)
          yield* outbox.append([...lapsed.events, ...closed.events, ...events], at)
          return { id: closed.state.id, status: closed.state.status, closedAt: at }
        })
      )

    /**
     * The owner extends an active request once, by `ttlDays` from its current expiry; the reminder is owed
     * again a day before the new one. Closed: `RequestAlreadyClosed`; expired (by the clock, even before the
     * expiry job wrote it): `RequestExpired`; extended already: `RequestAlreadyExtended`.
     */
    const extend = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const request = yield* foundRequest(yield* requests.lock(id))
          yield* requireRequestOwner(request, caller)
          const { state, events } = yield* extendRequest(effectiveRequest(request, at), at, ttlDays)
          yield* requests.update(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    return { create, createAll, close, extend } as const
  })
}) {}
