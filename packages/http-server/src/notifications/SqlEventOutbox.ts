import { SqlClient } from "@effect/sql"
import { EventOutbox, notificationsFor } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterCommit } from "../db/AfterCommit.js"
import { deferredWrites } from "../db/DeferredWrites.js"
import { pendingNotificationRows } from "./NotificationStore.js"
import { NotificationWakeup } from "./Wakeup.js"

export const SqlEventOutbox = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* NotificationWakeup

    return EventOutbox.of({
      append: (events, at) => {
        if (events.length === 0) return Effect.void
        const rows = events.map(({ _tag, ...payload }) => ({
          type: _tag,
          payload: JSON.stringify(payload),
          created_at: at
        }))
        // Written with the events, so in the caller's transaction: a commit never leaves an event without its
        // pushes, and a rollback takes both away. Deferred: they go with the transaction's other waiting writes.
        const notifications = pendingNotificationRows(events.flatMap(notificationsFor), at)
        const insertEvents = { statement: sql`INSERT INTO outbox_events ${sql.insert(rows)}` }
        const write =
          notifications.length === 0
            ? deferredWrites(sql, [insertEvents])
            : deferredWrites(sql, [
                insertEvents,
                { statement: sql`INSERT INTO notifications ${sql.insert(notifications)}` }
              ]).pipe(Effect.zipRight(afterCommit(wakeup.signal)))
        return write.pipe(Effect.orDie)
      }
    })
  })
)
