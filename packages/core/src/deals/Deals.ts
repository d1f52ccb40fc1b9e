import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { EventOutbox } from "../shared/EventOutbox.js"
import { FreeText, Optional, Text } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import type { User } from "../users/User.js"
import { cancelDeal, completeDeal } from "./Deal.js"
import { requireDealBuyer } from "./Policy.js"
import { DealRepo } from "./Repo.js"

/** Why the buyer cancels a deal, with the rule of each field. */
export const DealCancellation = Schema.Struct({ reason: Text(1, 200), description: Optional(FreeText(0, 2000)) })
export type DealCancellation = typeof DealCancellation.Type

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
          // A description left out is stored as null.
          const { state, events } = yield* cancelDeal(
            deal,
            { reason: cancellation.reason, description: cancellation.description ?? null },
            at
          )
          yield* deals.update(state)
          yield* outbox.append(events, at)
          return { id: state.id, status: state.status, cancelledAt: at }
        })
      )

    return { complete, cancel } as const
  })
}) {}
