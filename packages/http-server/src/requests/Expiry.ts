import { SqlClient } from "@effect/sql"
import { REQUEST_REMINDER_BEFORE_MS, RequestExpiry, Transactor } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"

/** What one pass of the expiry job wrote down. */
export interface ExpiryReport {
  /** Requests whose lapsed offers became `expired`. */
  readonly requestsWithLapsedOffers: number
  /** Requests that became `expired` (each with a `request_expired` push queued). */
  readonly requestsExpired: number
  /** Requests whose reminder (`request_expiring`) was queued. */
  readonly reminders: number
}

/** Rows one pass handles of each kind at most; the next pass (or wakeup) takes the rest. */
const PASS_LIMIT = 500

/** How often each instance runs the job when nothing wakes it sooner. */
const EXPIRY_INTERVAL = Duration.seconds(30)

const Claimed = (rows: ReadonlyArray<{ readonly id: string }>) => Option.fromNullable(rows[0]?.id)

/**
 * Writes down what the clock already shows (the API computes `expired` from the clock on every read and
 * write, so this job only catches the database up and queues the pushes): lapsed offers become `expired`,
 * lapsed requests `expired` with their pending offers `rejected` and a `request_expired` push, and requests a
 * day from expiry get their `request_expiring` push.
 *
 * Safe with any number of instances: each change is one transaction over one request, claimed with
 * `FOR UPDATE SKIP LOCKED` and handed to core's `RequestExpiry`, which re-checks the rule on the locked row, so a request another
 * instance holds is skipped and one it has just changed no longer matches; the push is queued in the
 * transaction that changes the state (outbox), hence exactly once. One request per transaction also keeps the
 * locks of buy_request_counts (taken by the status move) to one key pair, in key order, as everywhere else.
 */
const runExpiry = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const expiry = yield* RequestExpiry
  const transactor = yield* Transactor
  const at = new Date(yield* Clock.currentTimeMillis)

  /** Runs `step` on claimed requests, one transaction each, until none is left (or the pass limit). */
  const drain = <E>(step: Effect.Effect<boolean, E>) =>
    Effect.iterate(
      { done: 0, more: true },
      {
        while: (state) => state.more && state.done < PASS_LIMIT,
        body: (state) => Effect.map(step, (changed) => ({ done: changed ? state.done + 1 : state.done, more: changed }))
      }
    ).pipe(Effect.map((state) => state.done))

  const lapsedOffers = transactor.transaction(
    Effect.gen(function* () {
      const id = Claimed(
        yield* sql<{ id: string }>`
          SELECT r.id FROM buy_requests r
          WHERE r.id IN (
            SELECT o.request_id FROM offers o
            WHERE talab_offer_lapsed(o.status, o.valid_until, ${at})
            ORDER BY o.valid_until LIMIT 50
          )
          LIMIT 1 FOR UPDATE SKIP LOCKED`
      )
      return Option.isSome(id) && (yield* expiry.expireLapsedOffersOf(id.value, at))
    })
  )

  const lapsedRequests = transactor.transaction(
    Effect.gen(function* () {
      const id = Claimed(
        yield* sql<{ id: string }>`
          SELECT id FROM buy_requests WHERE talab_request_lapsed(status, expires_at, ${at})
          ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`
      )
      return Option.isSome(id) && (yield* expiry.expireIfLapsed(id.value, at))
    })
  )

  const reminders = transactor.transaction(
    Effect.gen(function* () {
      const id = Claimed(
        yield* sql<{ id: string }>`
          SELECT id FROM buy_requests
          WHERE status = 'active' AND reminded_at IS NULL
            AND expires_at > ${at} AND expires_at <= ${new Date(at.getTime() + REQUEST_REMINDER_BEFORE_MS)}
          ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`
      )
      return Option.isSome(id) && (yield* expiry.remindIfDue(id.value, at))
    })
  )

  const report: ExpiryReport = {
    requestsWithLapsedOffers: yield* drain(lapsedOffers),
    requestsExpired: yield* drain(lapsedRequests),
    reminders: yield* drain(reminders)
  }
  return report
}).pipe(Effect.orDie, Effect.withSpan("expiry"))

export interface ExpiryJobService {
  /** Wakes the job so it runs a pass now (the testkit calls it when its clock moves). */
  readonly wake: Effect.Effect<void>
  /** Runs one pass now and answers what it did. */
  readonly runNow: Effect.Effect<ExpiryReport>
}

/** The expiry job of this instance. */
export class ExpiryJob extends Context.Tag("Requests/ExpiryJob")<ExpiryJob, ExpiryJobService>() {
  /**
   * Runs a pass at start, then every EXPIRY_INTERVAL or when woken, for the life of the app; a run of failed passes
   * is logged when it starts and when it ends.
   */
  static readonly layer = Layer.scoped(
    ExpiryJob,
    Effect.gen(function* () {
      const context = yield* Effect.context<SqlClient.SqlClient | RequestExpiry | Transactor>()
      const wakeups = yield* Queue.sliding<void>(1)
      const runNow = runExpiry.pipe(
        Effect.tap((report) =>
          report.requestsExpired + report.reminders + report.requestsWithLapsedOffers === 0
            ? Effect.void
            : Effect.logInfo("expiry").pipe(
                Effect.annotateLogs({
                  requests_expired: report.requestsExpired,
                  reminders: report.reminders,
                  requests_with_lapsed_offers: report.requestsWithLapsedOffers
                })
              )
        ),
        Effect.provide(context)
      )
      // A run of failed passes (the database down) is logged twice, when it starts and when it ends, like the push
      // dispatcher and the alert matcher: a pass every 30 s would otherwise log an error each time.
      let failedPasses = 0
      const pass = runNow.pipe(
        Effect.zipRight(
          Effect.suspend(() => {
            if (failedPasses === 0) return Effect.void
            const failed = failedPasses
            failedPasses = 0
            return Effect.logInfo("Expiry resumed").pipe(Effect.annotateLogs({ failed_passes: failed }))
          })
        ),
        Effect.catchAllCause((cause) => {
          failedPasses += 1
          return failedPasses === 1
            ? Effect.logWarning("Expiry paused: a pass failed; the next pass retries", cause)
            : Effect.void
        })
      )
      const nextWake = Effect.race(Queue.take(wakeups), Effect.sleep(EXPIRY_INTERVAL))
      yield* pass.pipe(Effect.zipRight(nextWake), Effect.forever, Effect.forkScoped)
      return { wake: Queue.offer(wakeups, undefined).pipe(Effect.asVoid), runNow }
    })
  ).pipe(Layer.provide(RequestExpiry.Default))
}
