import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { UserEvent } from "@talab/contract"
import { DomainEvent, EventOutbox, RequestRepo, SellerProfileRepo, Transactor, UserRepo } from "@talab/core"
import { Duration, Effect, Layer } from "effect"
import { AlertMatcher } from "../../src/alerts/Matcher.js"
import { cityKey } from "../../src/alerts/Service.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { RealtimeHub, type RealtimeHubService } from "../../src/realtime/Hub.js"
import { freshPostgresDatabase, pgliteInMemory, repositoriesOver, type TestDatabase } from "../db/support/databases.js"
import { aRequest, aSellerProfile, at, aUser } from "../db/support/fixtures.js"
import { statementsSentBy } from "../support/statements-sent.js"

/*
 * The alert matcher's round (alerts/Matcher.ts) run by hand, so one round takes a known batch: several
 * requests matched together in one statement must each reach their own sellers, and only the requests that can
 * match (active, with a city) reach anyone. The end-to-end behaviour (languages, quiet hours, two instances) is
 * apps/server/test/e2e/seller-alerts.test.ts's and alerts-cluster.test.ts's.
 */

const published: Array<{ readonly userIds: ReadonlyArray<string>; readonly event: UserEvent }> = []
const recordingHub = Layer.succeed(RealtimeHub, {
  publishToUsers: (userIds: ReadonlyArray<string>, event: UserEvent) =>
    Effect.sync(() => void published.push({ userIds, event }))
} as unknown as RealtimeHubService)

const services = (database: TestDatabase) =>
  AlertMatcher.Test().pipe(
    Layer.provideMerge(repositoriesOver(database)),
    Layer.provide(recordingHub),
    Layer.provide(AppConfig.layer())
  )

/** An approved seller with one alert rule for `categories` in `city` (its key made as the service makes it). */
const sellerAlertedFor = (categories: ReadonlyArray<string>, city: string) =>
  Effect.gen(function* () {
    const seller = yield* Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser()))
    yield* Effect.flatMap(SellerProfileRepo, (profiles) =>
      profiles.insertIfAbsent(
        aSellerProfile(seller.id, { status: "approved", approvedAt: at("2025-01-02T11:00:00.000Z") })
      )
    )
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, created_at)
      VALUES (gen_random_uuid(), ${seller.id}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(categories)}::jsonb)), ARRAY[${city}]::text[],
              ARRAY[${cityKey(city)}]::text[], now())`.pipe(Effect.orDie)
    return seller.id
  })

/** A request posted as the use case posts it: the row and its RequestCreated event, in one transaction. */
const posted = (overrides: Parameters<typeof aRequest>[1]) =>
  Effect.gen(function* () {
    const buyer = yield* Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser()))
    const request = aRequest(buyer.id, overrides)
    const [transactor, requests, outbox] = yield* Effect.all([Transactor, RequestRepo, EventOutbox])
    yield* transactor.transaction(
      Effect.zipRight(
        requests.insert(request),
        outbox.append([DomainEvent.RequestCreated({ requestId: request.id, buyerId: buyer.id })], request.createdAt)
      )
    )
    return request
  })

const matchesOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ sellerUserId: string }>`
      SELECT m.seller_user_id AS "sellerUserId" FROM request_matches m
      JOIN notifications n ON n.user_id = m.seller_user_id AND n.type = 'request_match'
        AND n.payload -> 'data' ->> 'request_id' = ${requestId}
      WHERE m.request_id = ${requestId}
      ORDER BY 1`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.sellerUserId))
  )

/** The matcher, after rounds that took the events earlier tests of the suite left. */
const matcherWithNothingWaiting = Effect.gen(function* () {
  const matcher = yield* AlertMatcher
  let earlier = yield* matcher.runOnce
  while (earlier.requests > 0) earlier = yield* matcher.runOnce
  return matcher
})

const suite = (name: string, database: TestDatabase) =>
  layer(services(database), { timeout: Duration.minutes(1), excludeTestServices: true })(name, (it) => {
    it.effect("one round matches a batch of requests, each to its own sellers, and only those that can match", () =>
      Effect.gen(function* () {
        const matcher = yield* matcherWithNothingWaiting
        const city = `Tabuk ${crypto.randomUUID().slice(0, 8)}`
        const [phones, accessories, spelledOtherwise, both] = [
          yield* sellerAlertedFor(["phone"], city),
          yield* sellerAlertedFor(["accessory"], city),
          yield* sellerAlertedFor(["phone"], ` ${city.toUpperCase()} `),
          yield* sellerAlertedFor(["phone", "accessory"], city)
        ]
        published.length = 0
        const phone = yield* posted({ category: "phone", locationCity: city })
        const accessory = yield* posted({ category: "accessory", locationCity: city })
        const cityless = yield* posted({ category: "phone", locationCity: null })
        const closed = yield* posted({ category: "phone", locationCity: city })
        yield* Effect.flatMap(RequestRepo, (requests) =>
          requests.update({ ...closed, status: "closed", closedAt: closed.createdAt })
        )

        expect(yield* matcher.runOnce).toEqual({ requests: 4, matches: 5, summaries: 0 })
        expect(yield* matchesOf(phone.id)).toEqual([phones, spelledOtherwise, both].sort())
        expect(yield* matchesOf(accessory.id)).toEqual([accessories, both].sort())
        expect(yield* matchesOf(cityless.id)).toEqual([])
        expect(yield* matchesOf(closed.id)).toEqual([])
        expect(
          published.map(({ event, userIds }) => ({ requestId: event.data.id, userIds: [...userIds].sort() }))
        ).toEqual(
          expect.arrayContaining([
            { requestId: phone.id, userIds: [phones, spelledOtherwise, both].sort() },
            { requestId: accessory.id, userIds: [accessories, both].sort() }
          ])
        )
        expect(published).toHaveLength(2)
        expect(published.find(({ event }) => event.data.id === phone.id)?.event).toEqual({
          event: "request_match",
          data: {
            id: phone.id,
            category: "phone",
            productBrand: phone.productBrand,
            productModel: phone.productModel,
            budgetMin: phone.budgetMin,
            budgetMax: phone.budgetMax,
            locationCity: phone.locationCity,
            locationDistrict: phone.locationDistrict,
            createdAt: phone.createdAt
          }
        })
        // Every event of the batch was processed, the ones that matched nobody too.
        expect((yield* matcher.runOnce).requests).toBe(0)
      })
    )

    it.effect("a round sends as many statements for a batch of six requests as for one", () =>
      Effect.gen(function* () {
        const matcher = yield* matcherWithNothingWaiting
        const city = `Hail ${crypto.randomUUID().slice(0, 8)}`
        yield* sellerAlertedFor(["phone"], city)
        const statementsOfARound = (requests: number) =>
          Effect.gen(function* () {
            for (let i = 0; i < requests; i++) yield* posted({ category: "phone", locationCity: city })
            const { result: round, statements } = yield* statementsSentBy(matcher.runOnce)
            expect(round.requests).toBe(requests)
            return statements.length
          })
        const one = yield* statementsOfARound(1)
        expect(yield* statementsOfARound(6)).toBe(one)
        // The look for held alerts whose quiet hours ended (and for waiting events), BEGIN, the claim, the rules
        // with keywords (judged by core's matching), the match, COMMIT.
        expect(one).toBe(6)
      })
    )

    it.effect(
      "a round with no request waiting sends one statement, and a request posted after it is matched by the next",
      () =>
        Effect.gen(function* () {
          const matcher = yield* matcherWithNothingWaiting
          const city = `Abha ${crypto.randomUUID().slice(0, 8)}`
          const seller = yield* sellerAlertedFor(["phone"], city)
          const idle = yield* statementsSentBy(matcher.runOnce)
          expect(idle.result).toEqual({ requests: 0, matches: 0, summaries: 0 })
          expect(idle.statements).toHaveLength(1)
          expect(idle.statements[0]).not.toMatch(/^BEGIN/)
          const request = yield* posted({ category: "phone", locationCity: city })
          expect(yield* matcher.runOnce).toEqual({ requests: 1, matches: 1, summaries: 0 })
          expect(yield* matchesOf(request.id)).toEqual([seller])
        })
    )
    it.effect(
      "a batch past a seller's hourly limit pushes up to the limit, in creation order, and holds the rest for an hour",
      () =>
        Effect.gen(function* () {
          const matcher = yield* matcherWithNothingWaiting
          const { requestMatchPushesPerHour: limit } = AppConfig.make()
          const city = `Jazan ${crypto.randomUUID().slice(0, 8)}`
          const seller = yield* sellerAlertedFor(["phone"], city)
          const requests = []
          for (let i = 0; i < limit + 2; i++) {
            const createdAt = new Date(Date.parse("2025-01-03T10:00:00.000Z") + i * 1_000)
            requests.push(yield* posted({ category: "phone", locationCity: city, createdAt }))
          }
          const before = Date.now()

          expect(yield* matcher.runOnce).toEqual({ requests: limit + 2, matches: limit + 2, summaries: 0 })

          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ requestId: string; heldUntil: Date | null; pushed: boolean }>`
            SELECT m.request_id AS "requestId", m.push_held_until AS "heldUntil",
                   EXISTS (SELECT 1 FROM notifications n WHERE n.user_id = m.seller_user_id AND n.type = 'request_match'
                           AND n.payload -> 'data' ->> 'request_id' = m.request_id::text) AS pushed
            FROM request_matches m WHERE m.seller_user_id = ${seller}`.pipe(Effect.orDie)
          const byRequest = new Map(rows.map((row) => [row.requestId, row]))
          const pushed = requests.filter((request) => byRequest.get(request.id)?.pushed)
          expect(pushed.map((request) => request.id)).toEqual(requests.slice(0, limit).map((request) => request.id))
          for (const request of requests.slice(limit)) {
            const held = byRequest.get(request.id)!
            expect(held.pushed).toBe(false)
            expect(new Date(held.heldUntil!).getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000)
            expect(new Date(held.heldUntil!).getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000)
          }
        })
    )
  })

suite("the alert matcher on PostgreSQL", freshPostgresDatabase)
suite("the alert matcher on PGlite", pgliteInMemory)
