import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { DomainEvent, EventOutbox, RequestRepo, Transactor, UserRepo } from "@talab/core"
import { Deferred, Duration, Effect, Fiber, Layer, Option } from "effect"
import { afterEach, vi } from "vitest"
import { AppConfig } from "../../src/config/AppConfig.js"
import { withWaitingWrites } from "../../src/db/DeferredWrites.js"
import { statementsSentBy } from "../support/statements-sent.js"
import {
  defectOf,
  freshPostgresDatabase,
  pgliteInMemory,
  repositoriesOver,
  type TestDatabase
} from "./support/databases.js"
import { aRequest, aUser } from "./support/fixtures.js"

/*
 * The SQL Transactor's lazy transaction and deferred writes (src/db/DeferredWrites.ts), on both backends: what
 * reaches the server (counted at node-postgres' Client.query, which every statement of the pool goes through)
 * and what is stored. The request insert, the outbox and the request update are the deferred writes used here.
 */

const aBuyer = Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser()))

const created = (request: { id: string; buyerId: string }) =>
  DomainEvent.OfferCreated({
    offerId: request.id,
    requestId: request.id,
    sellerId: request.buyerId,
    buyerId: request.buyerId,
    conversationId: request.id
  })

/** What is stored of a request: the row, its outbox events and the notifications owed to its buyer. */
const storedOf = ({ buyerId, id: requestId }: { id: string; buyerId: string }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all({
      requests: sql<{ status: string }>`SELECT status FROM buy_requests WHERE id = ${requestId}`,
      events: sql`SELECT 1 FROM outbox_events WHERE payload->>'requestId' = ${requestId}`,
      notifications: sql`SELECT 1 FROM notifications WHERE user_id = ${buyerId}`
    })
  ).pipe(
    Effect.orDie,
    Effect.map(({ events, notifications, requests }) => ({
      statuses: requests.map((row) => row.status),
      events: events.length,
      notifications: notifications.length
    }))
  )

const services = (database: TestDatabase) => repositoriesOver(database).pipe(Layer.provide(AppConfig.layer()))

const suite = (name: string, database: TestDatabase, onServer: boolean) =>
  layer(services(database), { timeout: Duration.minutes(1), excludeTestServices: true })(name, (it) => {
    afterEach(() => {
      vi.restoreAllMocks()
    })

    it.effect("a transaction that only writes is one statement, no BEGIN or COMMIT, and stores every write", () =>
      Effect.gen(function* () {
        const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
        const request = aRequest((yield* aBuyer).id)
        const { statements } = yield* statementsSentBy(
          transactor.transaction(
            Effect.zipRight(requests.insert(request), outbox.append([created(request)], request.createdAt))
          )
        )
        expect(statements).toHaveLength(1)
        expect(statements[0]).toMatch(/^WITH "deferred_0" AS \(INSERT INTO "?buy_requests/)
        expect(yield* storedOf(request)).toEqual({ statuses: ["active"], events: 1, notifications: 1 })
      })
    )

    it.effect("a read after a deferred write sees it: the waiting writes go first, in the opened transaction", () =>
      Effect.gen(function* () {
        const [transactor, requests] = yield* Effect.all([Transactor, RequestRepo])
        const request = aRequest((yield* aBuyer).id)
        const { result, statements } = yield* statementsSentBy(
          transactor.transaction(Effect.zipRight(requests.insert(request), requests.findById(request.id)))
        )
        expect(Option.map(result, (found) => found.id)).toEqual(Option.some(request.id))
        expect(statements.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "WITH", "SELECT", "COMMIT"])
      })
    )

    it.effect(
      "a statement made with the waiting writes carries them: one round trip, rolled back with the transaction",
      () =>
        Effect.gen(function* () {
          const [sql, transactor, requests, outbox] = yield* Effect.all([
            SqlClient.SqlClient,
            Transactor,
            RequestRepo,
            EventOutbox
          ])
          const request = aRequest((yield* aBuyer).id)
          const carrying = (then: Effect.Effect<void, "refused">) =>
            statementsSentBy(
              transactor
                .transaction(
                  requests
                    .findById(request.id)
                    .pipe(
                      Effect.zipRight(requests.insert(request)),
                      Effect.zipRight(outbox.append([created(request)], request.createdAt)),
                      Effect.zipRight(
                        withWaitingWrites(sql, (leading) => sql`WITH ${leading} own AS (SELECT 1) SELECT 1`)
                      ),
                      Effect.zipRight(then)
                    )
                )
                .pipe(Effect.either)
            )
          const refused = yield* carrying(Effect.fail("refused" as const))
          expect(refused.statements.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "SELECT", "WITH", "ROLLBACK"])
          expect(yield* storedOf(request)).toEqual({ statuses: [], events: 0, notifications: 0 })

          const committed = yield* carrying(Effect.void)
          expect(committed.statements.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "SELECT", "WITH", "COMMIT"])
          expect(committed.statements[2]).toMatch(
            /^WITH "deferred_0" AS \(INSERT INTO "?buy_requests.* own AS \(SELECT 1\)/
          )
          expect(yield* storedOf(request)).toEqual({ statuses: ["active"], events: 1, notifications: 1 })
        })
    )

    it.effect("a failure after deferred writes sends nothing and stores nothing", () =>
      Effect.gen(function* () {
        const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
        const request = aRequest((yield* aBuyer).id)
        const { result, statements } = yield* statementsSentBy(
          transactor
            .transaction(
              requests
                .insert(request)
                .pipe(
                  Effect.zipRight(outbox.append([created(request)], request.createdAt)),
                  Effect.zipRight(Effect.fail("refused" as const))
                )
            )
            .pipe(Effect.flip)
        )
        expect(result).toBe("refused")
        expect(statements).toEqual([])
        expect(yield* storedOf(request)).toEqual({ statuses: [], events: 0, notifications: 0 })
      })
    )

    it.effect("a failure after a read rolls back the writes sent before it and drops the waiting ones", () =>
      Effect.gen(function* () {
        const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
        const request = aRequest((yield* aBuyer).id)
        const { statements } = yield* statementsSentBy(
          transactor
            .transaction(
              requests
                .insert(request)
                .pipe(
                  Effect.zipRight(requests.findById(request.id)),
                  Effect.zipRight(outbox.append([created(request)], request.createdAt)),
                  Effect.zipRight(Effect.fail("refused" as const))
                )
            )
            .pipe(Effect.flip)
        )
        expect(statements.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "WITH", "SELECT", "ROLLBACK"])
        expect(yield* storedOf(request)).toEqual({ statuses: [], events: 0, notifications: 0 })
      })
    )

    it.effect("a deferred write the database refuses is a defect, and none of the writes sent with it is stored", () =>
      Effect.gen(function* () {
        const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
        const request = aRequest((yield* aBuyer).id)
        const unknownBuyer = aRequest(aUser().id)
        const defect = yield* defectOf(
          transactor.transaction(
            requests
              .insert(request)
              .pipe(
                Effect.zipRight(outbox.append([created(request)], request.createdAt)),
                Effect.zipRight(requests.insert(unknownBuyer))
              )
          )
        )
        expect(defect).toMatchObject({ _tag: "SqlError" })
        expect(yield* storedOf(request)).toEqual({ statuses: [], events: 0, notifications: 0 })
      })
    )

    it.effect("two updates of one row are not sent as one statement, so the second one wins", () =>
      Effect.gen(function* () {
        const [transactor, requests] = yield* Effect.all([Transactor, RequestRepo])
        const request = aRequest((yield* aBuyer).id)
        yield* requests.insert(request)
        const { statements } = yield* statementsSentBy(
          transactor.transaction(
            requests
              .update({ ...request, status: "closed", closedAt: request.createdAt })
              .pipe(Effect.zipRight(requests.update({ ...request, status: "expired" })))
          )
        )
        expect(statements.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "UPDATE", "UPDATE", "COMMIT"])
        expect((yield* storedOf(request)).statuses).toEqual(["expired"])
      })
    )

    it.effect("an insert and an update of one row are not sent as one statement, so the update sees the row", () =>
      Effect.gen(function* () {
        const [transactor, requests] = yield* Effect.all([Transactor, RequestRepo])
        const request = aRequest((yield* aBuyer).id)
        yield* transactor.transaction(
          Effect.zipRight(requests.insert(request), requests.update({ ...request, status: "expired" }))
        )
        expect((yield* storedOf(request)).statuses).toEqual(["expired"])
      })
    )

    it.effect("rows several writes insert into one table go as one insert of them all", () =>
      Effect.gen(function* () {
        const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
        const posted = [aRequest((yield* aBuyer).id), aRequest((yield* aBuyer).id), aRequest((yield* aBuyer).id)]
        const { statements } = yield* statementsSentBy(
          transactor.transaction(
            Effect.zipRight(
              requests.insertAll(posted),
              Effect.forEach(posted, (request) => outbox.append([created(request)], request.createdAt), {
                discard: true
              })
            )
          )
        )
        expect(statements).toHaveLength(1)
        expect(statements[0]!.match(/INSERT INTO "?outbox_events"?/g)).toHaveLength(1)
        for (const request of posted) {
          expect(yield* storedOf(request)).toEqual({ statuses: ["active"], events: 1, notifications: 1 })
        }
      })
    )

    it.effect("rows several writes update in one table go as one update, each row with its own values", () =>
      Effect.gen(function* () {
        const [transactor, requests] = yield* Effect.all([Transactor, RequestRepo])
        const buyerId = (yield* aBuyer).id
        const posted = [aRequest(buyerId), aRequest(buyerId), aRequest(buyerId)]
        yield* requests.insertAll(posted)
        const closedAt = new Date(posted[0]!.createdAt.getTime() + 60_000)
        const changed = [
          { ...posted[0]!, status: "closed" as const, closedAt, offerCount: 2 },
          { ...posted[1]!, notes: "بحالة ممتازة 'quoted' \\ \"too\"", offerCount: 1 },
          { ...posted[2]!, status: "expired" as const, locationCity: null }
        ]
        const { statements } = yield* statementsSentBy(
          transactor.transaction(Effect.forEach(changed, (request) => requests.update(request), { discard: true }))
        )
        expect(statements).toHaveLength(1)
        expect(statements[0]!.match(/UPDATE "?buy_requests"?/g)).toHaveLength(1)
        for (const request of changed) {
          const stored = Option.getOrThrow(yield* requests.findById(request.id))
          expect(stored).toEqual(request)
        }
      })
    )

    it.effect("in a nested transaction writes are sent at once, and its rollback takes them away alone", () =>
      Effect.gen(function* () {
        const [transactor, requests] = yield* Effect.all([Transactor, RequestRepo])
        const buyerId = (yield* aBuyer).id
        const [kept, undone] = [aRequest(buyerId), aRequest(buyerId)]
        yield* transactor.transaction(
          requests
            .insert(kept)
            .pipe(
              Effect.zipRight(
                transactor
                  .transaction(Effect.zipRight(requests.insert(undone), Effect.fail("undo" as const)))
                  .pipe(Effect.ignore)
              )
            )
        )
        expect((yield* storedOf(kept)).statuses).toEqual(["active"])
        expect((yield* storedOf(undone)).statuses).toEqual([])
      })
    )

    it.effect.skipIf(!onServer)(
      "an interrupted transaction is rolled back: no connection is left idle in a transaction",
      () =>
        Effect.gen(function* () {
          const [transactor, requests, sql] = yield* Effect.all([Transactor, RequestRepo, SqlClient.SqlClient])
          const request = aRequest((yield* aBuyer).id)
          const begun = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(
            transactor.transaction(
              requests
                .insert(request)
                .pipe(
                  Effect.zipRight(requests.findById(request.id)),
                  Effect.zipRight(Deferred.succeed(begun, undefined)),
                  Effect.zipRight(Effect.never)
                )
            )
          )
          yield* Deferred.await(begun)
          const inTransaction = sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.pipe(
            Effect.orDie,
            Effect.map(([row]) => row!.n)
          )
          expect(yield* inTransaction).toBe(1)
          yield* Fiber.interrupt(fiber)
          expect(yield* inTransaction).toBe(0)
          expect(yield* storedOf(request)).toEqual({ statuses: [], events: 0, notifications: 0 })
        })
    )

    it.effect("outside a transaction the outbox's event and notification rows are still one statement", () =>
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        const request = aRequest((yield* aBuyer).id)
        yield* RequestRepo.pipe(Effect.flatMap((requests) => requests.insert(request)))
        const { statements } = yield* statementsSentBy(outbox.append([created(request)], request.createdAt))
        expect(statements).toHaveLength(1)
        expect(yield* storedOf(request)).toEqual({ statuses: ["active"], events: 1, notifications: 1 })
      })
    )
  })

suite("deferred writes on PostgreSQL", freshPostgresDatabase, true)
suite("deferred writes on PGlite", pgliteInMemory, false)
