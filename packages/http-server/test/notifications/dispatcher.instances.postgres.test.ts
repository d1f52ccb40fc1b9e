import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { type Push, PushOutcome, PushSender, UserRepo } from "@talab/core"
import { Context, Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { pgTypes } from "../../src/db/PgTypes.js"
import { SqlRepositoriesLayer } from "../../src/db/Repositories.js"
import { PushDispatcher } from "../../src/notifications/Dispatcher.js"
import { pendingNotificationRows } from "../../src/notifications/NotificationStore.js"
import { freshPostgresDatabase } from "../db/support/databases.js"
import { aUser } from "../db/support/fixtures.js"
import { registerDevice } from "./support/pushes.js"

const serverUrl = process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432"

/** A PushSender that takes a few real milliseconds per push, so the two instances' batches overlap. */
const recordingSender = (delivered: Array<Push>) =>
  Layer.succeed(
    PushSender,
    PushSender.of({
      send: (push) =>
        Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 3))).pipe(
          Effect.zipRight(Effect.sync(() => delivered.push(push))),
          Effect.as(PushOutcome.Delivered())
        )
    })
  )

/** One server instance: its own connection pool to the database, its repositories and its dispatcher. */
const instance = (databaseUrl: string, delivered: Array<Push>) =>
  PushDispatcher.layer({ pollInterval: Duration.millis(5), batchSize: 5, concurrency: 5 }).pipe(
    Layer.provide(SqlRepositoriesLayer),
    Layer.provide(recordingSender(delivered)),
    Layer.provide(PgClient.layer({ url: Redacted.make(databaseUrl), types: pgTypes }))
  )

describe("push dispatchers of two instances on one PostgreSQL database", () => {
  it.live(
    "deliver every notification exactly once between them",
    () =>
      Effect.gen(function* () {
        const setup = yield* Layer.build(SqlRepositoriesLayer.pipe(Layer.provideMerge(freshPostgresDatabase)))
        const sql = Context.get(setup, SqlClient.SqlClient)
        const [{ name }] = yield* sql<{ name: string }>`SELECT current_database() AS name`
        const count = 300

        const users = yield* Effect.forEach(Array.from({ length: 30 }), () =>
          Effect.flatMap(UserRepo, (repo) => repo.insertOrGet(aUser()))
        ).pipe(Effect.provide(setup))
        yield* Effect.forEach(users, (user) => registerDevice(user.id, "android")).pipe(Effect.provide(setup))
        const owed = Array.from({ length: count }, (_, index) => ({
          recipientId: users[index % users.length]!.id,
          type: "offer_created" as const,
          data: { requestId: randomUUID() }
        }))
        yield* sql`INSERT INTO notifications ${sql.insert(pendingNotificationRows(owed, new Date()))}`

        const deliveredByA: Array<Push> = []
        const deliveredByB: Array<Push> = []
        yield* Layer.build(
          Layer.merge(instance(`${serverUrl}/${name}`, deliveredByA), instance(`${serverUrl}/${name}`, deliveredByB))
        )

        yield* sql<{ pending: number }>`SELECT count(*) AS pending FROM notifications WHERE status = 'pending'`.pipe(
          Effect.repeat({ until: ([row]) => row!.pending === 0, schedule: Schedule.spaced(Duration.millis(50)) }),
          Effect.timeout(Duration.seconds(60))
        )

        const all = [...deliveredByA, ...deliveredByB].map((push) => push.data.request_id)
        expect(all).toHaveLength(count)
        expect(new Set(all).size).toBe(count)
        expect(deliveredByA.length).toBeGreaterThan(0)
        expect(deliveredByB.length).toBeGreaterThan(0)
        const [{ sent }] = yield* sql<{
          sent: number
        }>`SELECT count(*) AS sent FROM notifications WHERE status = 'sent'`
        expect(sent).toBe(count)
      }).pipe(Effect.scoped),
    120_000
  )
})
