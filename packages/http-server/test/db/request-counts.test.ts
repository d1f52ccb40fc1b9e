import { randomUUID } from "node:crypto"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import {
  type Category,
  Ids,
  Offers,
  type RequestInput,
  RequestRepo,
  RequestSettings,
  Requests,
  SellerProfileRepo,
  Transactor,
  type User,
  UserRepo
} from "@talab/core"
import { Deferred, Duration, Effect, Exit, Fiber, Layer } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { MigrationsLayer, migrations } from "../../src/db/Migrations.js"
import { type RequestFilters, RequestQueries } from "../../src/requests/Queries.js"
import { AttachedImagesForTests } from "../support/attached-images.js"
import {
  emptyPostgresDatabase,
  freshPostgresDatabase,
  repositoriesOver,
  unmigratedPgliteInMemory
} from "./support/databases.js"
import { aRequest, aSellerProfile, at, aUser } from "./support/fixtures.js"
import { oldSchemaRequest, oldSchemaUser } from "./support/old-schema.js"

/*
 * buy_request_counts (migrations 0005 and 0019) against count(*), through the services that write requests, on
 * both backends. Each suite has a database of its own; tests use cities of their own, and compare the whole
 * table too, so every key is checked, not only the ones a test touched. A key's count is the sum of its stripes.
 */

type Empty = Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown>

const migrated = (empty: Empty) => MigrationsLayer.pipe(Layer.provideMerge(empty))

const servicesOver = (empty: Empty) =>
  Layer.mergeAll(
    Requests.Default.pipe(Layer.provide(RequestSettings.Default)),
    Offers.Default,
    RequestQueries.Default.pipe(Layer.provide(AttachedImagesForTests))
  ).pipe(
    Layer.provideMerge(repositoriesOver(migrated(empty))),
    Layer.provide(Ids.Random),
    Layer.provide(AppConfig.layer())
  )

const aCity = () => `City ${randomUUID().slice(0, 8)}`

const anInput = (category: Category, locationCity: string | null): RequestInput => ({
  category,
  productBrand: "Apple",
  productModel: "iPhone 15",
  conditionPref: "used",
  budgetMin: 1000,
  budgetMax: 2000,
  locationDistrict: "Olaya",
  ...(locationCity === null ? {} : { locationCity })
})

interface KeyCount {
  readonly status: string
  readonly category: string
  readonly key: string
  readonly n: number
}

/** Every key's count kept by the triggers equals count(*) of the rows with that key. */
const expectCountsExact = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const counted = yield* sql<KeyCount>`
    SELECT status, category, COALESCE(location_city, '') AS key, count(*)::int AS n
    FROM buy_requests GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
  const kept = yield* sql<KeyCount>`
    SELECT status, category, location_city_key AS key, sum(n)::int AS n
    FROM buy_request_counts GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`
  expect(counted.length).toBeGreaterThan(0)
  expect(kept).toEqual(counted)
})

/** GET /requests's total for `filters`, as the read model answers it, next to count(*) of the same rows. */
const totals = (filters: RequestFilters) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const listed = yield* (yield* RequestQueries).list(filters, { page: 1, perPage: 1 })
    const [counted] = yield* sql<{ n: number }>`
      SELECT count(*)::int AS n FROM buy_requests WHERE ${sql.and([
        sql`status = ${filters.status}`,
        ...(filters.category !== undefined ? [sql`category = ${filters.category}`] : []),
        ...(filters.locationCity !== undefined ? [sql`location_city = ${filters.locationCity}`] : [])
      ])}`
    return { listed: listed.total, counted: counted?.n }
  })

/** Asserts the read model's total for `filters` is `expected`, and so is count(*). */
const expectTotal = (filters: RequestFilters, expected: number) =>
  Effect.map(totals(filters), (got) =>
    expect(got, JSON.stringify(filters)).toEqual({ listed: expected, counted: expected })
  )

/** Asserts the read model's total for `filters` is count(*), for filters over rows of other tests too. */
const expectTotalCounted = (filters: RequestFilters) =>
  Effect.map(totals(filters), (got) => expect(got.listed, JSON.stringify(filters)).toBe(got.counted))

const aBuyer = Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser()))

const anApprovedSeller = Effect.gen(function* () {
  const seller = yield* aBuyer
  yield* (yield* SellerProfileRepo).insertIfAbsent(
    aSellerProfile(seller.id, { status: "approved", approvedAt: at("2025-01-02T12:00:00.000Z") })
  )
  return seller
})

const offerOn = (seller: User, requestId: string) =>
  Effect.flatMap(Offers, (offers) =>
    offers.create(seller, {
      requestId,
      price: 1500,
      availability: "today"
    })
  )

const createAll = (buyer: User, inputs: ReadonlyArray<RequestInput>, concurrency: number | "unbounded" = 1) =>
  Effect.flatMap(Requests, (requests) =>
    Effect.forEach(inputs, (input) => requests.create(buyer, input), { concurrency })
  )

const suite = (name: string, empty: Empty) =>
  layer(servicesOver(empty), { timeout: Duration.minutes(2), excludeTestServices: true })(name, (it) => {
    it.effect("creates, owner closes and accepts move each request's count, so every total equals count(*)", () =>
      Effect.gen(function* () {
        const buyer = yield* aBuyer
        const seller = yield* anApprovedSeller
        const city = aCity()
        const [phone1, , , accessory1] = yield* createAll(buyer, [
          anInput("phone", city),
          anInput("phone", city),
          anInput("phone", city),
          anInput("accessory", city),
          anInput("accessory", city),
          anInput("phone", null),
          anInput("phone", null)
        ])
        yield* expectTotal({ status: "active", locationCity: city }, 5)
        yield* expectTotal({ status: "active", category: "phone", locationCity: city }, 3)
        yield* expectTotal({ status: "closed", locationCity: city }, 0)
        yield* expectCountsExact

        yield* (yield* Requests).close(buyer, phone1!.id)
        const offer = yield* offerOn(seller, accessory1!.id)
        yield* (yield* Offers).accept(buyer, offer.offer.id)

        yield* expectTotal({ status: "active", locationCity: city }, 3)
        yield* expectTotal({ status: "active", category: "phone", locationCity: city }, 2)
        yield* expectTotal({ status: "active", category: "accessory", locationCity: city }, 1)
        yield* expectTotal({ status: "closed", locationCity: city }, 2)
        yield* expectTotal({ status: "closed", category: "accessory", locationCity: city }, 1)
        for (const status of ["active", "closed"] as const) {
          yield* expectTotalCounted({ status })
          for (const category of ["phone", "accessory"] as const) yield* expectTotalCounted({ status, category })
        }
        yield* expectCountsExact
      })
    )

    it.effect(
      "offers and withdrawals, which rewrite the request with its status unchanged, leave the counts alone",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const buyer = yield* aBuyer
          const seller = yield* anApprovedSeller
          const city = aCity()
          const [request] = yield* createAll(buyer, [anInput("phone", city)])
          // xmin is the transaction that last wrote a row: unchanged means not written, hence not locked either
          const version = sql<{ xmin: string }>`
          SELECT xmin::text AS xmin FROM buy_request_counts
          WHERE status = 'active' AND category = 'phone' AND location_city_key = ${city} ORDER BY stripe`
          const before = yield* version

          const offer = yield* offerOn(seller, request!.id)
          yield* (yield* Offers).withdraw(seller, offer.offer.id)
          yield* offerOn(seller, request!.id)

          const stored = yield* (yield* RequestRepo).findById(request!.id)
          expect(stored._tag === "Some" && stored.value.offerCount).toBe(1)
          expect(yield* version).toEqual(before)
          expect(before).toHaveLength(1)
          yield* expectTotal({ status: "active", locationCity: city }, 1)
          yield* expectCountsExact
        })
    )

    it.effect("a create rolled back takes its count back with it", () =>
      Effect.gen(function* () {
        const buyer = yield* aBuyer
        const city = aCity()
        yield* createAll(buyer, [anInput("phone", city)])
        const requests = yield* RequestRepo
        const rolledBack = yield* (yield* Transactor)
          .transaction(
            Effect.zipRight(
              requests.insert(aRequest(buyer.id, { locationCity: city })),
              Effect.fail("changed my mind" as const)
            )
          )
          .pipe(Effect.exit)
        expect(Exit.isFailure(rolledBack)).toBe(true)
        yield* expectTotal({ status: "active", locationCity: city }, 1)
        yield* expectCountsExact
      })
    )

    it.effect("a request moved to another category or city, or deleted, takes its count along", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const buyer = yield* aBuyer
        const [from, to] = [aCity(), aCity()]
        const [moved, deleted] = yield* createAll(buyer, [anInput("phone", from), anInput("phone", from)])

        yield* sql`UPDATE buy_requests SET category = 'accessory', location_city = ${to} WHERE id = ${moved!.id}`
        yield* expectTotal({ status: "active", category: "accessory", locationCity: to }, 1)
        yield* expectTotal({ status: "active", locationCity: from }, 1)
        yield* sql`UPDATE buy_requests SET location_city = NULL WHERE id = ${moved!.id}`
        yield* expectTotal({ status: "active", locationCity: to }, 0)
        yield* expectCountsExact

        yield* sql`DELETE FROM buy_requests WHERE id = ${deleted!.id}`
        yield* expectTotal({ status: "active", locationCity: from }, 0)
        yield* expectCountsExact
      })
    )

    it.effect("concurrent creates across three cities, racing closes of the same keys, keep every count exact", () =>
      Effect.gen(function* () {
        const cities = [aCity(), aCity(), aCity()] as const
        const buyers = yield* Effect.forEach(cities, () => aBuyer)
        // 5 requests per city, closed below while the 50 creates run
        const earlier = yield* Effect.forEach(cities, (city, i) =>
          createAll(
            buyers[i]!,
            Array.from({ length: 5 }, () => anInput("phone", city))
          )
        )
        const service = yield* Requests
        const closes = earlier.flatMap((made, i) => made.map((r) => service.close(buyers[i]!, r.id)))
        const creates = Array.from({ length: 50 }, (_, i) =>
          service.create(buyers[i % 3]!, anInput(i % 2 === 0 ? "phone" : "accessory", cities[i % 3]!))
        )
        yield* Effect.all([...creates, ...closes], { concurrency: "unbounded", discard: true })

        for (const [i, city] of cities.entries()) {
          const created = Array.from({ length: 50 }, (_, k) => k).filter((k) => k % 3 === i)
          yield* expectTotal({ status: "active", locationCity: city }, created.length)
          yield* expectTotal(
            { status: "active", category: "accessory", locationCity: city },
            created.filter((k) => k % 2 === 1).length
          )
          yield* expectTotal({ status: "closed", locationCity: city }, 5)
        }
        yield* expectCountsExact
      })
    )

    it.effect("the migration counts the requests stored before it", () =>
      Effect.gen(function* () {
        const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0005"))
        const database = yield* Layer.build(empty)
        const partly = PgMigrator.layer({ loader: PgMigrator.fromRecord(before) }).pipe(
          Layer.provide(NodeContext.layer)
        )
        yield* Effect.scoped(Layer.build(partly)).pipe(Effect.provide(database))

        const city = aCity()
        yield* Effect.gen(function* () {
          const buyer = yield* oldSchemaUser
          for (const overrides of [{}, {}, { category: "accessory" as const }, { locationCity: null }])
            yield* oldSchemaRequest(buyer, { locationCity: city, ...overrides })
          yield* oldSchemaRequest(buyer, { locationCity: city, closedAt: at("2025-01-05T10:00:00.000Z") })
        }).pipe(Effect.provide(database))

        yield* Effect.scoped(Layer.build(MigrationsLayer)).pipe(Effect.provide(database))
        const sql = SqlClient.SqlClient
        const kept = yield* Effect.flatMap(
          sql,
          (sql) => sql<KeyCount>`
            SELECT status, category, location_city_key AS key, sum(n)::int AS n
            FROM buy_request_counts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
        ).pipe(Effect.provide(database))
        expect(kept).toEqual([
          { status: "active", category: "accessory", key: city, n: 1 },
          { status: "active", category: "phone", key: "", n: 1 },
          { status: "active", category: "phone", key: city, n: 2 },
          { status: "closed", category: "phone", key: city, n: 1 }
        ])
        yield* expectCountsExact.pipe(Effect.provide(database))
      }).pipe(Effect.scoped)
    )
  })

suite("buy_request_counts on PGlite in memory", unmigratedPgliteInMemory)
suite("buy_request_counts on PostgreSQL", emptyPostgresDatabase)

// PostgreSQL only: PGlite has one connection, so its transactions never overlap. A copy of the run's migrated
// template, since this suite needs no schema history.
layer(servicesOver(freshPostgresDatabase), { timeout: Duration.minutes(1), excludeTestServices: true })(
  "buy_request_counts under concurrent creates on PostgreSQL",
  (it) => {
    it.effect("a create does not wait for another create of the same key to commit (the counts are striped)", () =>
      Effect.gen(function* () {
        const buyer = yield* aBuyer
        const city = aCity()
        const requests = yield* RequestRepo
        const inserted = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // Holds a create of the key open, its count written and locked, until the second create is done (or 5 s).
        const holder = yield* (yield* Transactor)
          .transaction(
            requests
              .insert(
                aRequest(buyer.id, {
                  category: "phone",
                  locationCity: city,
                  expiresAt: new Date(Date.now() + 86_400_000)
                })
              )
              .pipe(
                Effect.zipRight(Deferred.succeed(inserted, undefined)),
                Effect.zipRight(Effect.timeout(Deferred.await(release), Duration.seconds(5)))
              )
          )
          .pipe(Effect.fork)
        yield* Deferred.await(inserted)
        const second = yield* createAll(buyer, [anInput("phone", city)]).pipe(
          Effect.timeout(Duration.seconds(2)),
          Effect.exit
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder).pipe(Effect.ignore)
        expect(Exit.isSuccess(second), "the second create waited for the first one's commit").toBe(true)
        yield* expectTotal({ status: "active", category: "phone", locationCity: city }, 2)
        yield* expectCountsExact
      })
    )

    it.effect("batches of requests over the same keys, side by side and each in its own order, never deadlock", () =>
      Effect.gen(function* () {
        const buyer = yield* aBuyer
        const keys = [aCity(), aCity(), aCity()].flatMap((city) =>
          (["phone", "accessory"] as const).map((category) => ({ category, locationCity: city }))
        )
        const requests = yield* RequestRepo
        const transactor = yield* Transactor
        const expiresAt = new Date(Date.now() + 86_400_000)
        const BATCHES = 8
        const ROWS = 48
        // Each batch holds every key, eight rows of each, in an order of its own: rotated and, every other
        // batch, reversed, so two batches meet the keys in opposite orders.
        const batchOf = (batch: number) => {
          const rows = Array.from({ length: ROWS }, (_, i) => keys[(i + batch) % keys.length]!)
          return (batch % 2 === 0 ? rows : rows.reverse()).map((key) => aRequest(buyer.id, { ...key, expiresAt }))
        }
        const outcomes = yield* Effect.forEach(
          Array.from({ length: BATCHES }, (_, batch) => batchOf(batch)),
          (rows) => transactor.transaction(requests.insertAll(rows)).pipe(Effect.exit),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter(Exit.isFailure).map(String)).toEqual([])
        for (const key of keys) {
          yield* expectTotal({ status: "active", ...key }, (BATCHES * ROWS) / keys.length)
        }
        yield* expectCountsExact
        // One stripe per transaction: at most a row of each key per batch, where a stripe per row fills all 16.
        const sql = yield* SqlClient.SqlClient
        const stripes = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM buy_request_counts
          WHERE location_city_key IN ${sql.in([...new Set(keys.map((key) => key.locationCity))])}
          GROUP BY category, location_city_key`
        expect(stripes).toHaveLength(keys.length)
        for (const { n } of stripes) expect(n).toBeLessThanOrEqual(BATCHES)
      })
    )
  }
)
