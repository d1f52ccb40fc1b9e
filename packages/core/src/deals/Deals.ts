import * as Effect from "effect/Effect"
import { EventOutbox } from "../shared/EventOutbox.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { cancelDeal, completeDeal } from "./Deal.js"
import { requireDealBuyer } from "./Policy.js"
import { DealRepo } from "./Repo.js"

/** Why the buyer cancels a deal. */
export interface DealCancellation {
  readonly reason: string
  readonly description: string | null
}

const foundDeal = requireFound("deal")

/** The deal workflows: the buyer's complete and cancel, each on the locked deal. */
export class Deals extends Effect.Service<Deals>()("@talab/core/Deals", {
  effect: Effect.gen(function* () {
    const deals = yield* DealRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor

    /** The buyer completes an accepted deal (and is then asked to rate the seller). */
    const complete = (caller: User, id: string) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const deal = yield* foundDeal(yield* deals.lock(id))
          yield* requireDealBuyer(deal, caller)
          const { state, events } = yield* completeDeal(deal, at)
          yield* deals.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, completedAt: at }
        })
      )

    /** The buyer cancels an accepted deal with a reason; the request stays closed. */
    const cancel = (caller: User, id: string, cancellation: DealCancellation) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const deal = yield* foundDeal(yield* deals.lock(id))
          yield* requireDealBuyer(deal, caller)
          const { state, events } = yield* cancelDeal(deal, cancellation, at)
          yield* deals.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, cancelledAt: at }
        })
      )

    return { complete, cancel } as const
  })
}) {}
