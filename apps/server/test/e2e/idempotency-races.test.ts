import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import type { TestServer } from "@talab/testkit"
import { Effect, Redacted } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { aRequestBody, conversationOfOffer, Marketplace, offerBody } from "../support/fixtures.js"
import { type Client, client, newPhone, type Response, relaxedLimits, type SignedIn } from "../support/harness.js"
import { type PostgresDatabase, useTwoInstances } from "../support/two-instances.js"

const RETRIES = 10

/** Runs SQL on the suites' shared database (for arranging what the API cannot: a broken table, a stuck claim). */
const onDatabase = <A>(url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

const keyed = (key: string) => ({ "idempotency-key": key })

/**
 * Every answer to concurrent retries with one key: the one run's answer (replayed ones equal to it and
 * marked) or 409 IDEMPOTENCY_KEY_IN_USE; answers the run's.
 */
const expectOneRun = <Body extends { readonly data: unknown }>(
  responses: ReadonlyArray<Response<Body>>,
  status: number
): Body["data"] => {
  const codeOf = (response: Response<Body>) => (response.body as { error?: { code?: string } } | undefined)?.error?.code
  const shown = JSON.stringify(responses.map((r) => [r.status, codeOf(r), r.headers.get("idempotent-replayed")]))
  const ran = responses.filter((r) => r.status === status && r.headers.get("idempotent-replayed") === null)
  expect(ran.length, shown).toBe(1)
  for (const response of responses) {
    if (response.status === 409) expect(codeOf(response), shown).toBe("IDEMPOTENCY_KEY_IN_USE")
    else expect({ status: response.status, body: response.body }, shown).toEqual({ status, body: ran[0]!.body })
  }
  return ran[0]!.body.data
}

/*
 * PostgreSQL: concurrent retries with one key create exactly one thing (the INSERT … ON CONFLICT claim), a
 * key is shared by two instances on one database, a 5xx releases the key, a stuck claim is taken over.
 */
describe("Idempotency-Key races and instances on postgres", () => {
  const adminPhone = newPhone()
  const cluster = useTwoInstances({ settings: { ...relaxedLimits, adminPhoneNumbers: [adminPhone] } })
  let database: PostgresDatabase
  let a: TestServer
  let b: TestServer
  let m: Marketplace
  let buyer: SignedIn
  let seller: SignedIn

  beforeAll(async () => {
    ;({ a, b, database } = cluster)
    m = new Marketplace(a, client(a), adminPhone)
    buyer = await m.buyer("Buyer")
    seller = await m.approvedSeller("Seller")
  }, 120_000)

  /** The same POST sent RETRIES times at once with one key (in `headers`), alternately through each instance. */
  const retries = <Body>(send: (api: Client, headers: Record<string, string>) => Promise<Response<Body>>) => {
    const key = randomUUID()
    return Promise.all(Array.from({ length: RETRIES }, (_, i) => send(client(i % 2 === 0 ? a : b), keyed(key))))
  }
  const total = async (list: "/requests/my?per_page=1" | "/deals/my?role=buyer&per_page=1", token: string) =>
    (await m.api.get(list, { token })).body.data.pagination.total

  it(`${RETRIES} concurrent retries of POST /requests create one request`, async () => {
    const before = await total("/requests/my?per_page=1", buyer.token)
    expectOneRun(
      await retries((api, headers) => api.post("/requests", { token: buyer.token, headers, body: aRequestBody() })),
      201
    )
    expect(await total("/requests/my?per_page=1", buyer.token)).toBe(before + 1)
  })

  it(`${RETRIES} concurrent retries of POST /offers create one offer`, async () => {
    const request = await m.createRequest(buyer)
    expectOneRun(
      await retries((api, headers) =>
        api.post("/offers", { token: seller.token, headers, body: offerBody(request.id) })
      ),
      201
    )
    expect((await m.offersOf(buyer, request.id)).length).toBe(1)
  })

  it(`${RETRIES} concurrent retries of POST /offers/{id}/accept make one deal`, async () => {
    const { offer } = await m.pendingOffer(buyer, seller)
    const before = await total("/deals/my?role=buyer&per_page=1", buyer.token)
    const deal = expectOneRun(
      await retries((api, headers) => api.post(`/offers/${offer.id}/accept`, { token: buyer.token, headers })),
      200
    ).deal
    expect(await total("/deals/my?role=buyer&per_page=1", buyer.token)).toBe(before + 1)
    expect((await m.dealDetail(buyer, deal.id)).offer.id).toBe(offer.id)
  })

  it(`${RETRIES} concurrent retries of POST /conversations/{id}/messages store one message`, async () => {
    const { offer } = await m.pendingOffer(buyer, seller)
    const conversationId = await conversationOfOffer(m.api, buyer, offer.id)
    const path = `/conversations/${conversationId}/messages` as const
    const body = { message_text: "once" }
    expectOneRun(await retries((api, headers) => api.post(path, { token: buyer.token, headers, body })), 201)
    const messages = (await m.api.get(`/conversations/${conversationId}/messages`, { token: seller.token })).body.data
      .messages
    expect(messages.filter((message) => message.message_text === "once").length).toBe(1)
  })

  it(`${RETRIES} concurrent retries of POST /ratings and POST /reports store one each`, async () => {
    const { deal } = await m.completedDeal(buyer, seller)
    expectOneRun(
      await retries((api, headers) =>
        api.post("/ratings", { token: buyer.token, headers, body: { deal_id: deal.id, rating: 5 } })
      ),
      201
    )
    const ratings = await onDatabase(database.url, (sql) => sql`SELECT id FROM ratings WHERE deal_id = ${deal.id}`)
    expect(ratings).toHaveLength(1)

    const reporter = await m.buyer("Reporter")
    expectOneRun(
      await retries((api, headers) =>
        api.post("/reports", {
          token: reporter.token,
          headers,
          body: { reported_user_id: seller.userId, reason: "scam" }
        })
      ),
      201
    )
    const reports = await m.adminReports()
    expect(reports.filter((report) => report.reporter?.id === reporter.userId).length).toBe(1)
  })

  it("replays through the other instance the answer one instance stored", async () => {
    const key = randomUUID()
    const first = await client(a).post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    const replay = await client(b).post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect({ status: replay.status, body: replay.body }).toEqual({ status: first.status, body: first.body })
  })

  it("answers 409 IDEMPOTENCY_KEY_IN_USE while a call holds the key, and takes over a claim held past its timeout", async () => {
    const key = randomUUID()
    const send = () => client(a).post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    const first = await send()
    // As if the instance running the call had died before storing its answer.
    await onDatabase(database.url, (sql) => sql`UPDATE idempotency_keys SET state = 'running' WHERE key = ${key}`)
    const inUse = await send()
    expect({ status: inUse.status, code: inUse.body.error.code }).toEqual({
      status: 409,
      code: "IDEMPOTENCY_KEY_IN_USE"
    })
    expect(inUse.headers.get("retry-after")).toBe("1")
    a.clock.advance("61 seconds")
    const takenOver = await send()
    expect(takenOver.status).toBe(201)
    expect(takenOver.headers.get("idempotent-replayed")).toBeNull()
    expect(takenOver.body.data.id).not.toBe(first.body.data.id)
  })

  it("releases the key after a 5xx, so the retry runs", async () => {
    const key = randomUUID()
    const send = () => client(a).post("/requests", { token: buyer.token, body: aRequestBody(), headers: keyed(key) })
    await onDatabase(database.url, (sql) => sql`ALTER TABLE buy_requests RENAME TO buy_requests_away`)
    const failed = await send().finally(() =>
      onDatabase(database.url, (sql) => sql`ALTER TABLE buy_requests_away RENAME TO buy_requests`)
    )
    expect(failed.status).toBe(500)
    const retried = await send()
    expect(retried.status).toBe(201)
    expect(retried.headers.get("idempotent-replayed")).toBeNull()
  })
})
