import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { SellerProfile } from "./SellerProfile.js"

/** Port: stores seller profiles, at most one per user. */
export class SellerProfileRepo extends Context.Tag("@talab/core/SellerProfileRepo")<
  SellerProfileRepo,
  {
    /** Inserts the profile unless the user has one; answers whether it was inserted (two racing applies: one wins). */
    readonly insertIfAbsent: (profile: SellerProfile) => Effect.Effect<boolean>
    readonly findById: (id: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly findByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly lockByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    /** Reads the user's profile under a shared lock: it cannot change (a suspension waits) until the transaction ends. */
    readonly lockSharedByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly update: (profile: SellerProfile) => Effect.Effect<void>
  }
>() {}
