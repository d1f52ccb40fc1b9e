import { SqlClient, SqlSchema } from "@effect/sql"
import type { Session } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SessionRow } from "./SqlSessionRepo.js"

/** Read models of a user's sessions. */
export class SessionQueries extends Effect.Service<SessionQueries>()("Auth/SessionQueries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const liveOf = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, now: Schema.DateFromSelf }),
      Result: SessionRow,
      execute: ({ now, userId }) => sql`
        SELECT * FROM sessions
        WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${now}
        ORDER BY created_at DESC, id DESC`
    })

    /** The user's live sessions (not ended, not expired), newest first. */
    const live = (userId: string): Effect.Effect<ReadonlyArray<Session>> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => liveOf({ userId, now: new Date(now) })).pipe(Effect.orDie)

    return { live } as const
  })
}) {}
