import {
  closeRequest,
  createRequest,
  EventOutbox,
  effectiveRequest,
  expireLapsedOffers,
  extendRequest,
  Ids,
  type NewBuyRequest,
  OfferRepo,
  RequestRepo,
  rejectPendingOffers,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/AppConfig.js"
import { found, requireOwner } from "./Policy.js"

/** What the buyer writes: a new request less the ids the service assigns. */
export type RequestInput = Omit<NewBuyRequest, "id" | "buyerId">

/** Posting and closing buy requests. */
export class RequestsService extends Effect.Service<RequestsService>()("Requests/Service", {
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const { requestTtlDays } = yield* AppConfig
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const create = (buyer: User, input: RequestInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const { state, events } = yield* createRequest(
            { id: yield* ids.next, buyerId: buyer.id, ...input },
            at,
            requestTtlDays
          )
          yield* requests.insert(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    /**
     * The owner closes an active request; its pending offers are rejected with it. The request row is
     * locked first, like every transition that touches its offers, so a racing offer or accept waits.
     */
    const close = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const locked = yield* found(yield* requests.lock(id))
          yield* requireOwner(locked, caller)
          // Offers that lapsed are expired, not rejected, and leave the count; an expired request is REQUEST_EXPIRED.
          const lapsed = expireLapsedOffers(locked, yield* offers.lockByRequest(locked.id), at)
          const closed = yield* closeRequest(effectiveRequest(lapsed.request, at), at)
          const { rejected, events } = rejectPendingOffers(lapsed.offers)
          yield* offers.updateStatus([...lapsed.expired, ...rejected])
          yield* requests.update(closed.state)
          yield* outbox.append([...lapsed.events, ...closed.events, ...events], at)
          return { id: closed.state.id, status: closed.state.status, closedAt: at }
        })
      )

    /**
     * The owner extends an active request once, by REQUEST_TTL_DAYS from its current expiry; the reminder is
     * owed again a day before the new one. Closed: REQUEST_ALREADY_CLOSED; expired (by the clock, even before
     * the job wrote it): REQUEST_EXPIRED; extended already: REQUEST_ALREADY_EXTENDED.
     */
    const extend = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const request = yield* found(yield* requests.lock(id))
          yield* requireOwner(request, caller)
          const { state, events } = yield* extendRequest(effectiveRequest(request, at), at, requestTtlDays)
          yield* requests.update(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    return { create, close, extend } as const
  })
}) {}
