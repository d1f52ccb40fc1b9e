import { SqlClient } from "@effect/sql"
import { EventOutbox, notificationsFor } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterCommit } from "../db/AfterCommit.js"
import { deferredWrites, insertWrite, statementWrite } from "../db/DeferredWrites.js"
import { pendingNotificationRows } from "./NotificationStore.js"
import { NotificationWakeup } from "./Wakeup.js"

type NotificationRow = ReturnType<typeof pendingNotificationRows>[number]

/**
 * Inserts the notifications, but one with a `collapse_key` only when its recipient got none with that key in
 * the hour before it (notifications_collapsing finds the last one). The check is part of the insert, so it is
 * decided in the transaction of the change that owes the push, with it. The rows are one JSON parameter, so the
 * statement's text is the same whatever their number, as a write batch's own statement it may go in.
 */
const insertNotifications = (sql: SqlClient.SqlClient, notifications: ReadonlyArray<NotificationRow>) =>
  sql`
    INSERT INTO notifications (user_id, type, payload, status, next_attempt_at, created_at, collapse_key)
    SELECT v.user_id, v.type, v.payload, v.status, v.next_attempt_at, v.created_at, v.collapse_key
    FROM jsonb_to_recordset(${JSON.stringify(notifications)}::jsonb) AS v(
      user_id uuid, type text, payload jsonb, status text, next_attempt_at timestamptz, created_at timestamptz,
      collapse_key text
    )
    WHERE v.collapse_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM notifications n
      WHERE n.user_id = v.user_id AND n.collapse_key = v.collapse_key
        AND n.created_at > v.created_at - interval '1 hour'
    )`

export const SqlEventOutbox = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* NotificationWakeup

    return EventOutbox.of({
      append: (events, at) => {
        if (events.length === 0) return Effect.void
        const rows = events.map(({ _tag, ...payload }) => ({ type: _tag, payload, created_at: at }))
        // Written with the events, so in the caller's transaction: a commit never leaves an event without its
        // pushes, and a rollback takes both away. Deferred: they go with the transaction's other waiting writes.
        const notifications = pendingNotificationRows(events.flatMap(notificationsFor), at)
        const insertEvents = insertWrite("outbox_events", rows)
        const write =
          notifications.length === 0
            ? deferredWrites(sql, [insertEvents])
            : deferredWrites(sql, [insertEvents, statementWrite(insertNotifications(sql, notifications))]).pipe(
                Effect.zipRight(afterCommit(wakeup.signal))
              )
        return write.pipe(Effect.orDie)
      }
    })
  })
)
