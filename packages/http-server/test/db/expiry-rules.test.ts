import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { effectiveOfferOn, effectiveRequest, expireRequest, OfferStatus, offerLapsed, RequestStatus } from "@talab/core"
import { Duration, Effect } from "effect"
import fc from "fast-check"
import { freshPostgresDatabase, pgliteInMemory, type TestDatabase } from "./support/databases.js"
import { anOffer, aRequest, aUser } from "./support/fixtures.js"

/*
 * The expiry rules of migration 0020 (SQL functions the queries call) against their twins in core, on both
 * backends: a change on either side that the other does not follow fails here. The cases crowd the boundary
 * (a millisecond either side of the expiry, and the expiry itself), since that is where a `<` and a `<=` part.
 */

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Where an expiry lies from the instant it is judged at: mostly at it or a millisecond either side, else
 * anywhere within two months.
 */
const offsetMs = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) },
  { weight: 1, arbitrary: fc.integer({ min: -60 * DAY_MS, max: 60 * DAY_MS }) }
)

const aCase = fc.record({
  at: fc.date({
    min: new Date("2020-01-01T00:00:00.000Z"),
    max: new Date("2040-01-01T00:00:00.000Z"),
    noInvalidDate: true
  }),
  requestStatus: fc.constantFrom(...RequestStatus.literals),
  expiresInMs: offsetMs,
  offerStatus: fc.constantFrom(...OfferStatus.literals),
  validForMs: fc.option(offsetMs, { nil: null })
})
type Case = typeof aCase extends fc.Arbitrary<infer A> ? A : never

interface Verdict {
  readonly requestLapsed: boolean
  readonly requestStatus: string
  readonly offerLapsed: boolean
  readonly offerStatus: string
}

const buyer = aUser()
const seller = aUser()

/** What core says of a case. */
const inCore = ({ at, requestStatus, expiresInMs, offerStatus, validForMs }: Case): Verdict => {
  const request = aRequest(buyer.id, {
    status: requestStatus,
    expiresAt: new Date(at.getTime() + expiresInMs),
    closedAt: requestStatus === "closed" ? at : null
  })
  const offer = anOffer(request.id, seller.id, {
    status: offerStatus,
    validUntil: validForMs === null ? null : new Date(at.getTime() + validForMs)
  })
  return {
    requestLapsed: expireRequest(request, at) !== undefined,
    requestStatus: effectiveRequest(request, at).status,
    offerLapsed: offerLapsed(offer, at),
    offerStatus: effectiveOfferOn(offer, request, at).status
  }
}

/** What the database's functions say of the cases, in one statement. */
const inSql = (sql: SqlClient.SqlClient, cases: ReadonlyArray<Case>) => {
  const rows = cases.map(({ at, requestStatus, expiresInMs, offerStatus, validForMs }, i) => ({
    i,
    at: at.toISOString(),
    request_status: requestStatus,
    expires_at: new Date(at.getTime() + expiresInMs).toISOString(),
    offer_status: offerStatus,
    valid_until: validForMs === null ? null : new Date(at.getTime() + validForMs).toISOString()
  }))
  return sql<Verdict>`
    SELECT talab_request_lapsed(c.request_status, c.expires_at, c.at) AS "requestLapsed",
           talab_request_status(c.request_status, c.expires_at, c.at) AS "requestStatus",
           talab_offer_lapsed(c.offer_status, c.valid_until, c.at) AS "offerLapsed",
           talab_offer_status(c.offer_status, c.valid_until, c.request_status, c.expires_at, c.at) AS "offerStatus"
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS c(i int, at timestamptz, request_status text, expires_at timestamptz, offer_status text, valid_until timestamptz)
    ORDER BY c.i`
}

const suite = (name: string, database: TestDatabase) =>
  layer(database, { timeout: Duration.minutes(2) })(name, (it) => {
    it.effect("the SQL functions say what core says, at, before and after every expiry", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(aCase, { minLength: 1, maxLength: 50 }), async (cases) => {
              expect(await Effect.runPromise(inSql(sql, cases))).toEqual(cases.map(inCore))
            }),
            { numRuns: 100 }
          )
        )
      })
    )
  })

suite("expiry rules on PostgreSQL", freshPostgresDatabase)
suite("expiry rules on PGlite", pgliteInMemory)
