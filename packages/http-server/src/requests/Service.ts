import {
  closeRequest,
  createRequest,
  EventOutbox,
  Ids,
  type NewBuyRequest,
  OfferRepo,
  RequestRepo,
  rejectPendingOffers,
  Transactor,
  type User
} from "@talab/core"
import { Clock, Effect } from "effect"
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
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const create = (buyer: User, input: RequestInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const { state, events } = yield* createRequest({ id: yield* ids.next, buyerId: buyer.id, ...input }, at)
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
          const request = yield* found(yield* requests.lock(id))
          yield* requireOwner(request, caller)
          const closed = yield* closeRequest(request, at)
          const { rejected, events } = rejectPendingOffers(yield* offers.lockByRequest(request.id))
          yield* offers.updateStatus(rejected)
          yield* requests.update(closed.state)
          yield* outbox.append([...closed.events, ...events], at)
          return { id: closed.state.id, status: closed.state.status, closedAt: at }
        })
      )

    return { create, close } as const
  })
}) {}
