import { SqlClient } from "@effect/sql"
import { RequestMatchEventData } from "@talab/contract"
import { type BuyRequest, matchesAll, queryWordsOf } from "@talab/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/AppConfig.js"
import { textArrayLiteral } from "../db/PgArrays.js"
import { columnsAs, fieldNames } from "../db/Rows.js"
import { NotificationWakeup } from "../notifications/Wakeup.js"
import { RealtimeHub } from "../realtime/Hub.js"
import { cityKey } from "./Service.js"

export interface MatcherOptions {
  /** How often to look for new requests to match and for held alerts whose quiet hours ended. */
  readonly pollInterval: Duration.DurationInput
  /** RequestCreated events matched per transaction. */
  readonly batchSize: number
}

const defaultMatcherOptions: MatcherOptions = { pollInterval: Duration.millis(250), batchSize: 20 }

/** What one round did. */
export interface MatchRound {
  /** Requests matched (RequestCreated events processed). */
  readonly requests: number
  /** Sellers alerted (rows of request_matches written). */
  readonly matches: number
  /** Summary pushes queued for quiet hours that ended. */
  readonly summaries: number
}

/** A request as matched: what the event shows of it, and its buyer, who is not alerted about their own request. */
type MatchedRequest = RequestMatchEventData & Pick<BuyRequest, "buyerId">

// Read as the SQL types them (numbers, Dates), as the request lists are: see requests/Queries.ts.
const matchedColumns = columnsAs("buy_requests", [...fieldNames(RequestMatchEventData), "buyerId"])

/**
 * Alerts sellers about new requests (docs/DECISIONS.md, "Seller alerts for matching requests"). Each round:
 * 1. queues one `request_match_summary` push per seller whose quiet hours ended, for the alerts they held, and
 *    looks whether RequestCreated events wait (one statement, all an idle round sends);
 * 2. if they do, claims RequestCreated events of the outbox (written with the request, so none is lost) with
 *    SKIP LOCKED, so instances share them; one statement asks the GIN index of seller_alert_rules for the
 *    approved sellers (not the buyer) with a rule matching each request, records one request_matches row per
 *    request and seller (the key keeps it to one) and queues a `request_match` push for those not in quiet hours
 *    and under their hourly limit (REQUEST_MATCH_PUSHES_PER_HOUR, counting the alert pushes of the last hour);
 *    a match past the limit is held, like one in quiet hours, until a push of that hour is an hour old, and the
 *    held ones then go out as one summary;
 *    the events are marked processed in the same transaction. After the commit, connected sellers get an `event`
 *    frame.
 * The request's own transaction only writes its event: matching 10,000 sellers does not slow the create.
 */
export class AlertMatcher extends Context.Tag("Alerts/Matcher")<
  AlertMatcher,
  {
    /** One round now (tests and benchmarks drive it when they choose). */
    readonly runOnce: Effect.Effect<MatchRound>
  }
>() {
  /** The matcher running in the background for the scope's lifetime. */
  static readonly layer = (
    options: Partial<MatcherOptions> = {}
  ): Layer.Layer<AlertMatcher, never, SqlClient.SqlClient | RealtimeHub | AppConfig> =>
    Layer.scoped(AlertMatcher, running({ ...defaultMatcherOptions, ...options }))

  /** The matcher without its background fiber. */
  static readonly Test = (
    options: Partial<MatcherOptions> = {}
  ): Layer.Layer<AlertMatcher, never, SqlClient.SqlClient | RealtimeHub | AppConfig> =>
    Layer.effect(AlertMatcher, make({ ...defaultMatcherOptions, ...options }))
}

const currentDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const make = (options: MatcherOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const hub = yield* RealtimeHub
    const wakeup = yield* NotificationWakeup
    const { requestMatchPushesPerHour: pushesPerHour } = yield* AppConfig

    /**
     * Claims a batch of RequestCreated events (SKIP LOCKED, so instances share them) and marks them processed, in
     * one statement; answers one row per event, with its request when that can match (active, with a city).
     */
    const claimBatch = (now: Date) =>
      sql<{ eventId: string } & Partial<MatchedRequest>>`
        WITH claimed AS (
          SELECT id, payload->>'requestId' AS request_id FROM outbox_events
          WHERE processed_at IS NULL AND type = 'RequestCreated'
          ORDER BY created_at, id
          LIMIT ${options.batchSize}
          FOR UPDATE SKIP LOCKED
        ), processed AS (
          UPDATE outbox_events SET processed_at = ${now} FROM claimed WHERE outbox_events.id = claimed.id
        )
        SELECT claimed.id AS "eventId", ${sql.literal(matchedColumns)}
        FROM claimed
        LEFT JOIN buy_requests ON buy_requests.id = claimed.request_id::uuid
          AND buy_requests.status = 'active' AND buy_requests.location_city IS NOT NULL`

    const batchOf = (requests: ReadonlyArray<MatchedRequest>) =>
      sql`jsonb_to_recordset(${JSON.stringify(
        requests.map((request) => ({ request_id: request.id, city_key: cityKey(request.locationCity!) }))
      )}::jsonb) AS b(request_id uuid, city_key text)`

    /**
     * The rules with keywords that a request of the batch meets otherwise, with the request's search words: which
     * of them its keywords find is judged here, by core's matching, as a search judges it (`matchesAll`). Answers
     * `<request id> <rule id>` for each pair that matches.
     */
    const keywordMatches = (requests: ReadonlyArray<MatchedRequest>) =>
      sql<{ requestId: string; ruleId: string; keywords: ReadonlyArray<string>; searchWords: ReadonlyArray<string> }>`
        SELECT b.request_id AS "requestId", rule.id AS "ruleId", rule.keywords, r.search_words AS "searchWords"
        FROM ${batchOf(requests)}
        JOIN buy_requests r ON r.id = b.request_id
        JOIN seller_alert_rules rule
          ON rule.city_keys @> ARRAY[b.city_key]::text[] AND rule.categories @> ARRAY[r.category]::text[]
        WHERE cardinality(rule.keywords) > 0`.pipe(
        Effect.map((rows) =>
          rows
            .filter((row) => matchesAll(queryWordsOf(...row.keywords), row.searchWords))
            .map((row) => `${row.requestId} ${row.ruleId}`)
        )
      )

    /**
     * The sellers alerted about each request of a batch, in one statement: for each request, one row of
     * request_matches per approved seller (not the buyer) with a matching rule (the GIN index of
     * seller_alert_rules finds them; the key keeps it to one per request and seller), and a `request_match` push
     * queued for those not in quiet hours. City keys are made here (`cityKey`), as the rules' were.
     */
    const matchBatch = (requests: ReadonlyArray<MatchedRequest>, keyworded: ReadonlyArray<string>, now: Date) =>
      sql<{ requestId: string; sellerUserId: string }>`
        WITH batch AS (
          SELECT b.request_id, b.city_key, r.category, r.budget_min, r.budget_max, r.buyer_id, r.created_at
          FROM ${batchOf(requests)}
          JOIN buy_requests r ON r.id = b.request_id
        ), candidates AS (
          SELECT DISTINCT ON (b.request_id, rule.seller_user_id) b.request_id, b.created_at, rule.seller_user_id,
                 rule.id AS rule_id
          FROM batch b
          JOIN seller_alert_rules rule
            ON rule.city_keys @> ARRAY[b.city_key]::text[] AND rule.categories @> ARRAY[b.category]::text[]
          JOIN seller_profiles sp ON sp.user_id = rule.seller_user_id AND sp.status = 'approved'
          WHERE (rule.price_min IS NULL OR rule.price_min <= b.budget_max)
            AND (rule.price_max IS NULL OR rule.price_max >= b.budget_min)
            AND rule.seller_user_id <> b.buyer_id
            AND (cardinality(rule.keywords) = 0
                 OR b.request_id::text || ' ' || rule.id::text = ANY(${textArrayLiteral(keyworded)}::text[]))
          ORDER BY b.request_id, rule.seller_user_id, rule.created_at, rule.id
        ), timed AS (
          SELECT c.request_id, c.created_at, c.seller_user_id, c.rule_id, quiet.held_until
          FROM candidates c
          LEFT JOIN seller_alert_settings s ON s.seller_user_id = c.seller_user_id
          LEFT JOIN LATERAL (
            SELECT CASE
              WHEN s.seller_user_id IS NULL THEN NULL
              WHEN CASE WHEN s.quiet_from < s.quiet_to
                        THEN l.t::time >= s.quiet_from AND l.t::time < s.quiet_to
                        ELSE l.t::time >= s.quiet_from OR l.t::time < s.quiet_to END
              THEN (CASE WHEN l.t::date + s.quiet_to > l.t THEN l.t::date + s.quiet_to
                         ELSE (l.t::date + 1) + s.quiet_to END) AT TIME ZONE s.time_zone
            END AS held_until
            FROM (SELECT ${now}::timestamptz AT TIME ZONE s.time_zone AS t) l
          ) quiet ON true
        ), recent AS (
          SELECT s.seller_user_id, w.sent, w.oldest, nth.created_at AS nth_newest
          FROM (SELECT DISTINCT seller_user_id FROM timed WHERE held_until IS NULL) s
          CROSS JOIN LATERAL (
            SELECT count(*)::int AS sent, min(n.created_at) AS oldest FROM notifications n
            WHERE n.user_id = s.seller_user_id AND n.type IN ('request_match', 'request_match_summary')
              AND n.created_at > ${now}::timestamptz - interval '1 hour'
          ) w
          LEFT JOIN LATERAL (
            SELECT n.created_at FROM notifications n
            WHERE n.user_id = s.seller_user_id AND n.type IN ('request_match', 'request_match_summary')
              AND n.created_at > ${now}::timestamptz - interval '1 hour'
            ORDER BY n.created_at DESC OFFSET ${pushesPerHour - 1} LIMIT 1
          ) nth ON true
        ), limited AS (
          SELECT t.request_id, t.seller_user_id, t.rule_id,
                 CASE
                   WHEN t.held_until IS NOT NULL THEN t.held_until
                   WHEN r.sent + row_number() OVER (
                     PARTITION BY t.seller_user_id, t.held_until IS NULL ORDER BY t.created_at, t.request_id
                   ) <= ${pushesPerHour} THEN NULL
                   ELSE COALESCE(r.nth_newest, r.oldest, ${now}::timestamptz) + interval '1 hour'
                 END AS held_until
          FROM timed t LEFT JOIN recent r ON r.seller_user_id = t.seller_user_id
        ), inserted AS (
          INSERT INTO request_matches (request_id, seller_user_id, matched_at, rule_id, push_held_until, push_queued_at)
          SELECT request_id, seller_user_id, ${now}, rule_id, held_until,
                 CASE WHEN held_until IS NULL THEN ${now}::timestamptz END
          FROM limited
          ON CONFLICT (request_id, seller_user_id) DO NOTHING
          RETURNING request_id, seller_user_id, push_held_until
        ), pushes AS (
          INSERT INTO notifications (user_id, type, payload, status, next_attempt_at, created_at)
          SELECT seller_user_id, 'request_match', jsonb_build_object('data', jsonb_build_object('request_id', request_id)),
                 'pending', ${now}, ${now}
          FROM inserted WHERE push_held_until IS NULL
        )
        SELECT request_id AS "requestId", seller_user_id AS "sellerUserId" FROM inserted`

    // A batch costs five statements (BEGIN, claim, keywords, match, COMMIT) whatever its size, run only when events wait (see
    // releaseHeld); one transaction, so a crash between the claim and the match leaves the events unprocessed
    // rather than the sellers unalerted.
    const matchNewRequests = Effect.gen(function* () {
      const now = yield* currentDate
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const events = yield* claimBatch(now)
          const requests = events.filter((row): row is typeof row & MatchedRequest => row.id != null)
          const alerted = requests.length === 0 ? [] : yield* matchBatch(requests, yield* keywordMatches(requests), now)
          const matched = requests.flatMap(({ buyerId: _buyerId, eventId: _eventId, ...event }) => {
            const sellerIds = alerted.filter((row) => row.requestId === event.id).map((row) => row.sellerUserId)
            return sellerIds.length === 0 ? [] : [{ sellerIds, event }]
          })
          return { requests: events.length, matched }
        })
      )
    })

    /**
     * Queues one summary per seller for the alerts held until now, and answers whether RequestCreated events wait,
     * in one statement: an idle round (most of them) is this statement alone, with no transaction. The UPDATE takes
     * each held row once: a second instance running it at the same time waits for the first one's rows and then
     * finds them queued.
     */
    const releaseHeld = Effect.gen(function* () {
      const now = yield* currentDate
      const [round] = yield* sql<{ summaries: number; requestsWaiting: boolean }>`
        WITH released AS (
          UPDATE request_matches SET push_queued_at = ${now}
          WHERE push_queued_at IS NULL AND push_held_until <= ${now}
          RETURNING seller_user_id, request_id
        ), counted AS (
          SELECT released.seller_user_id, count(*)::int AS n
          FROM released
          JOIN buy_requests r ON r.id = released.request_id AND r.status = 'active'
          JOIN seller_profiles sp ON sp.user_id = released.seller_user_id AND sp.status = 'approved'
          GROUP BY released.seller_user_id
        ), queued AS (
          INSERT INTO notifications (user_id, type, payload, status, next_attempt_at, created_at)
          SELECT seller_user_id, 'request_match_summary',
                 jsonb_build_object('data', jsonb_build_object('match_count', n::text)), 'pending', ${now}, ${now}
          FROM counted
          RETURNING id
        )
        SELECT (SELECT count(*) FROM queued)::int AS summaries,
               EXISTS (
                 SELECT 1 FROM outbox_events WHERE processed_at IS NULL AND type = 'RequestCreated'
               ) AS "requestsWaiting"`
      return round!
    })

    const runOnce: Effect.Effect<MatchRound> = Effect.gen(function* () {
      const { summaries, requestsWaiting } = yield* releaseHeld
      const { requests, matched } = requestsWaiting ? yield* matchNewRequests : { requests: 0, matched: [] }
      for (const { sellerIds, event } of matched) {
        yield* hub.publishToUsers(sellerIds, { event: "request_match", data: event })
      }
      const matches = matched.reduce((sum, { sellerIds }) => sum + sellerIds.length, 0)
      if (matches > 0 || summaries > 0) yield* wakeup.signal
      return { requests, matches, summaries }
    }).pipe(Effect.orDie)

    return { runOnce }
  })

const running = (options: MatcherOptions) =>
  Effect.gen(function* () {
    const matcher = yield* make(options)
    // A failed round is retried after the poll interval; nothing is lost, the events wait. An outage (the
    // database down) is logged once when it starts and once when matching resumes, like the push dispatcher.
    let failedRounds = 0
    const loop = Effect.forever(
      matcher.runOnce.pipe(
        Effect.tap(() => {
          if (failedRounds === 0) return Effect.void
          const failed = failedRounds
          failedRounds = 0
          return Effect.logInfo("Alert matching resumed").pipe(Effect.annotateLogs({ failed_rounds: failed }))
        }),
        Effect.flatMap((round) =>
          round.requests >= options.batchSize ? Effect.void : Effect.sleep(options.pollInterval)
        ),
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          failedRounds += 1
          const report =
            failedRounds === 1
              ? Effect.logWarning("Alert matching paused: a round failed; retrying", cause)
              : Effect.void
          return Effect.zipRight(report, Effect.sleep(options.pollInterval))
        }),
        Effect.withTracerEnabled(false)
      )
    )
    yield* Effect.forkScoped(loop)
    return matcher
  })
