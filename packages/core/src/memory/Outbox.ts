import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EventOutbox } from "../shared/EventOutbox.js"
import { MemoryStore } from "./Store.js"

/** {@link EventOutbox} over the {@link MemoryStore}: events join the caller's transaction, read back from `outbox`. */
export const MemoryEventOutbox = Layer.effect(
  EventOutbox,
  Effect.map(MemoryStore, (store) =>
    EventOutbox.of({
      append: (events, at) =>
        events.length === 0
          ? Effect.void
          : store.write((t) => [
              undefined,
              { ...t, outbox: Chunk.appendAll(t.outbox, Chunk.fromIterable(events.map((event) => ({ event, at })))) }
            ])
    })
  )
)
