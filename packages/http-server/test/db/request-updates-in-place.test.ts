import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { RequestRepo, Transactor, UserRepo } from "@talab/core"
import { Duration, Effect, Layer } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { freshPostgresDatabase, pgliteInMemory, repositoriesOver, type TestDatabase } from "./support/databases.js"
import { aRequest, aUser } from "./support/fixtures.js"

/*
 * An offer rewrites its request's row (its offer count). The pages of buy_requests keep room for that new
 * version (migration 0030), so it is written beside the old one and no index gets an entry for it: a row
 * on a page that new requests had filled is still on that page after its update.
 */

const pageOf = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: string; page: number }>`
      SELECT id, (ctid::text::point)[0]::int AS page FROM buy_requests WHERE id IN ${sql.in(ids)}`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => new Map(rows.map((row) => [row.id, row.page] as const)))
  )

const suite = (name: string, database: TestDatabase) =>
  layer(repositoriesOver(database).pipe(Layer.provide(AppConfig.layer())), {
    timeout: Duration.minutes(1),
    excludeTestServices: true
  })(name, (it) => {
    it.effect("a request's offer count is updated on its own page, one that new requests had filled", () =>
      Effect.gen(function* () {
        const [users, requests, transactor] = yield* Effect.all([UserRepo, RequestRepo, Transactor])
        const buyer = yield* users.insertOrGet(aUser())
        const written = Array.from({ length: 80 }, () => aRequest(buyer.id))
        for (const request of written) yield* requests.insert(request)
        const pages = yield* pageOf(written.map((request) => request.id))
        // A request on the first page whose next one was started: the inserts filled that page first.
        const first = Math.min(...pages.values())
        expect(Math.max(...pages.values())).toBeGreaterThan(first)
        const onFullPage = written.find((request) => pages.get(request.id) === first)!
        yield* transactor.transaction(requests.update({ ...onFullPage, offerCount: onFullPage.offerCount + 1 }))
        expect((yield* pageOf([onFullPage.id])).get(onFullPage.id)).toBe(first)
        const [stored] = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{
              offerCount: number
            }>`SELECT offer_count AS "offerCount" FROM buy_requests WHERE id = ${onFullPage.id}`
        ).pipe(Effect.orDie)
        expect(stored?.offerCount).toBe(onFullPage.offerCount + 1)
      })
    )
  })

suite("request updates on PostgreSQL", freshPostgresDatabase)
suite("request updates on PGlite", pgliteInMemory)
