import { SqlClient, SqlSchema } from "@effect/sql"
import { DeviceToken, DeviceTokenRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A device token as stored: the entity under its column names. */
export const DeviceTokenRow = snakeCaseKeys(DeviceToken.fields)

export const SqlDeviceTokenRepo = Layer.effect(
  DeviceTokenRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const upsert = SqlSchema.single({
      Request: DeviceTokenRow,
      Result: DeviceTokenRow,
      execute: (row) => sql`
        INSERT INTO device_tokens ${sql.insert(row)}
        ON CONFLICT (push_token) DO UPDATE
          SET user_id = excluded.user_id, platform = excluded.platform, session_id = excluded.session_id
        RETURNING *`
    })

    return DeviceTokenRepo.of({
      upsert: (token) => upsert(token).pipe(Effect.orDie),
      removeForUser: (userId, pushToken) =>
        sql`DELETE FROM device_tokens WHERE user_id = ${userId} AND push_token = ${pushToken}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      removeAllOfUser: (userId) =>
        sql`DELETE FROM device_tokens WHERE user_id = ${userId}`.pipe(Effect.asVoid, Effect.orDie),
      removeToken: (pushToken) =>
        sql`DELETE FROM device_tokens WHERE push_token = ${pushToken}`.pipe(Effect.asVoid, Effect.orDie),
      removeForSessions: (sessionIds) =>
        sessionIds.length === 0
          ? Effect.void
          : sql`DELETE FROM device_tokens WHERE session_id IN ${sql.in(sessionIds)}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
