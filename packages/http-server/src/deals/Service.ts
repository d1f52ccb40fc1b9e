import { cancelDeal, completeDeal, DealRepo, EventOutbox, Transactor, type User } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { foundDeal, requireBuyer, requireParty } from "./Policy.js"
import { DealQueries } from "./Queries.js"

/** Reading a deal, and the buyer's complete and cancel. */
export class DealsService extends Effect.Service<DealsService>()("Deals/Service", {
  dependencies: [DealQueries.Default],
  effect: Effect.gen(function* () {
    const deals = yield* DealRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const queries = yield* DealQueries
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const get = (caller: User, id: string) =>
      Effect.gen(function* () {
        const { buyerId, sellerId, ...view } = yield* foundDeal(yield* queries.detail(id))
        yield* requireParty({ buyerId, sellerId }, caller)
        return view
      })

    /** The buyer completes an accepted deal (and is then asked to rate the seller). */
    const complete = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const deal = yield* foundDeal(yield* deals.lock(id))
          yield* requireBuyer(deal, caller)
          const { state, events } = yield* completeDeal(deal, at)
          yield* deals.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, completedAt: at }
        })
      )

    /** The buyer cancels an accepted deal with a reason; the request stays closed. */
    const cancel = (
      caller: User,
      id: string,
      cancellation: { readonly reason: string; readonly description: string | null }
    ) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const deal = yield* foundDeal(yield* deals.lock(id))
          yield* requireBuyer(deal, caller)
          const { state, events } = yield* cancelDeal(deal, cancellation, at)
          yield* deals.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, cancelledAt: at }
        })
      )

    return { get, complete, cancel } as const
  })
}) {}
