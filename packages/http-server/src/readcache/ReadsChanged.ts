import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"

/**
 * Drops the read cache's answers tagged with any of `tags` on every instance, and is done once each has
 * (confirmed over Redis, as the session cache's changes are): what a write's answer waits for, so the next read
 * anywhere sees the write. The default does nothing (no read cache); the realtime layer replaces it.
 */
export class ReadsChanged extends Context.Tag("@talab/http-server/ReadsChanged")<
  ReadsChanged,
  { readonly changed: (tags: ReadonlyArray<string>) => Effect.Effect<void> }
>() {
  static readonly Noop = Layer.succeed(ReadsChanged, { changed: () => Effect.void })
}

/** The tags the writes of the running transaction changed; `undefined` outside of one. */
const changedInTransaction = FiberRef.unsafeMake<Set<string> | undefined>(undefined)

/** What a repository announces its writes with: `changed(tags)`, gathered per transaction. */
export const makeReadsChanged = Effect.map(Effect.serviceOption(ReadsChanged), (service) => {
  const announce = service._tag === "Some" ? service.value.changed : () => Effect.void
  return {
    /**
     * After a write: inside a transaction, the tags wait for its commit and go with the others in one
     * announcement; outside one, they are announced at once.
     */
    changed: (tags: ReadonlyArray<string>): Effect.Effect<void> =>
      Effect.flatMap(FiberRef.get(changedInTransaction), (pending) => {
        if (pending === undefined) return announce(tags)
        for (const tag of tags) pending.add(tag)
        return Effect.void
      }),
    /** Runs the outermost transaction gathering its tags, and announces them once it has succeeded. */
    gathering: <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(FiberRef.get(changedInTransaction), (outer) => {
        if (outer !== undefined) return transaction
        const tags = new Set<string>()
        return Effect.tap(Effect.locally(transaction, changedInTransaction, tags), () =>
          tags.size === 0 ? Effect.void : announce([...tags])
        )
      })
  }
})
