import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Port: makes new identifiers. Swapped in tests for deterministic ids. */
export class Ids extends Context.Tag("@talab/core/Ids")<Ids, { readonly next: Effect.Effect<string> }>() {
  /** Random UUID v4 from the platform's cryptographic RNG. */
  static readonly Random = Layer.succeed(Ids, { next: Effect.sync(() => globalThis.crypto.randomUUID()) })
}

/** A fresh id, branded by the caller's schema. */
export const nextId = <B extends string>() => Effect.flatMap(Ids, (ids) => ids.next) as Effect.Effect<B, never, Ids>
