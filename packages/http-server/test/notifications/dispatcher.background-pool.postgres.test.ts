import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { UserRepo } from "@talab/core"
import { Context, Duration, Effect, Exit, Layer, Schedule } from "effect"
import { BackgroundSqlClient } from "../../src/db/BackgroundSqlClient.js"
import { SqlRepositoriesLayer } from "../../src/db/Repositories.js"
import { PushDispatcher } from "../../src/notifications/Dispatcher.js"
import { pendingNotificationRows } from "../../src/notifications/NotificationStore.js"
import { freshPostgresDatabase } from "../db/support/databases.js"
import { aUser } from "../db/support/fixtures.js"
import { registerDevice, scriptedPush } from "./support/pushes.js"

/** node-postgres' default pool size, which the main pool keeps (db/Database.ts). */
const MAIN_POOL_SIZE = 10

describe("the push dispatcher on PostgreSQL", () => {
  it.live(
    "delivers while the requests' transactions hold every connection of the main pool",
    () =>
      Effect.gen(function* () {
        const pushes = scriptedPush()
        const app = yield* Layer.build(
          PushDispatcher.layer({ pollInterval: Duration.millis(20) }).pipe(
            Layer.provideMerge(SqlRepositoriesLayer),
            Layer.provide(pushes.layer),
            Layer.provideMerge(freshPostgresDatabase)
          )
        )
        const main = Context.get(app, SqlClient.SqlClient)
        const buyer = yield* Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser())).pipe(Effect.provide(app))
        yield* registerDevice(buyer.id, "android").pipe(Effect.provide(app))

        // Every connection of the main pool taken, as a burst of requests would: the next statement waits.
        yield* Effect.forEach(Array.from({ length: MAIN_POOL_SIZE }), () => main.reserve, { concurrency: "unbounded" })
        const waited = yield* main`SELECT 1`.pipe(Effect.timeout(Duration.millis(300)), Effect.exit)
        expect(Exit.isFailure(waited), "the main pool still had a free connection").toBe(true)

        const owed = [{ recipientId: buyer.id, type: "offer_created" as const, data: { requestId: buyer.id } }]
        const background = Context.get(app, BackgroundSqlClient)
        yield* background`INSERT INTO notifications ${background.insert(pendingNotificationRows(owed, new Date()))}`

        yield* Effect.sync(() => pushes.to(buyer.id).length).pipe(
          Effect.repeat({ until: (delivered) => delivered === 1, schedule: Schedule.spaced(Duration.millis(20)) }),
          Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new Error("the push never went out") })
        )
        expect(pushes.to(buyer.id).map((push) => push.type)).toEqual(["offer_created"])
      }).pipe(Effect.scoped),
    60_000
  )
})
