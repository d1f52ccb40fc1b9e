import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { DomainEvent } from "./Events.js"

/** Appends domain events to the outbox, in the caller's transaction. */
export class EventOutbox extends Context.Tag("@talab/core/EventOutbox")<
  EventOutbox,
  { readonly append: (events: ReadonlyArray<DomainEvent>, at: Date) => Effect.Effect<void> }
>() {}
