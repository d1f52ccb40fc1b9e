import { SqlClient } from "@effect/sql"
import { EventOutbox } from "@talab/core"
import { Effect, Layer } from "effect"

export const SqlEventOutbox = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return EventOutbox.of({
      append: (events, at) => {
        if (events.length === 0) return Effect.void
        const rows = events.map(({ _tag, ...payload }) => ({
          type: _tag,
          payload: JSON.stringify(payload),
          created_at: at
        }))
        return sql`INSERT INTO outbox_events ${sql.insert(rows)}`.pipe(Effect.asVoid, Effect.orDie)
      }
    })
  })
)
