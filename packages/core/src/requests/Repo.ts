import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { BuyRequest } from "./BuyRequest.js"

/** Port: stores buy requests. */
export class RequestRepo extends Context.Tag("@talab/core/RequestRepo")<
  RequestRepo,
  {
    readonly insert: (request: BuyRequest) => Effect.Effect<void>
    /** Inserts requests posted together, in one statement where the store can: all of them, or none. */
    readonly insertAll: (requests: ReadonlyArray<BuyRequest>) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<BuyRequest>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<BuyRequest>>
    readonly update: (request: BuyRequest) => Effect.Effect<void>
    /** The ids of the buyer's requests stored as `active` (unlocked: each is locked as it is closed). */
    readonly activeIdsOfBuyer: (buyerId: string) => Effect.Effect<ReadonlyArray<string>>
  }
>() {}
