import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Deal } from "./Deal.js"

/** Port: stores deals. */
export class DealRepo extends Context.Tag("@talab/core/DealRepo")<
  DealRepo,
  {
    readonly insert: (deal: Deal) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Deal>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Deal>>
    readonly update: (deal: Deal) => Effect.Effect<void>
    /** Whether the user is the buyer or the seller of a deal still `accepted` (neither completed nor cancelled). */
    readonly hasOpenFor: (userId: string) => Effect.Effect<boolean>
  }
>() {}
