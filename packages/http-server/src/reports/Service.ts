import {
  DealRepo,
  EventOutbox,
  fileReport,
  Ids,
  NotFound,
  OfferRepo,
  type ReportReason,
  ReportRepo,
  type ResolveAction,
  rejectPendingOffers,
  resolveReport,
  SellerProfileRepo,
  suspendSellerProfile,
  Transactor,
  type User,
  UserRepo
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { requireAdmin } from "../admin/Policy.js"
import { foundDeal, requireParty } from "../deals/Policy.js"
import { foundReport, requireReportedInDeal } from "./Policy.js"

export interface ReportInput {
  readonly reportedUserId: string
  readonly dealId: string | null
  readonly reason: ReportReason
  readonly description: string | null
}

/** Filing reports and the admin's resolution of them. */
export class ReportsService extends Effect.Service<ReportsService>()("Reports/Service", {
  effect: Effect.gen(function* () {
    const reports = yield* ReportRepo
    const users = yield* UserRepo
    const deals = yield* DealRepo
    const profiles = yield* SellerProfileRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** A user reports somebody else; about a deal, only its parties may report, and only each other. */
    const file = (reporter: User, input: ReportInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const reported = yield* users.findById(input.reportedUserId)
          if (Option.isNone(reported)) return yield* Effect.fail(new NotFound({ resource: "user" }))
          if (input.dealId !== null) {
            const deal = yield* foundDeal(yield* deals.findById(input.dealId))
            yield* requireParty(deal, reporter)
            yield* requireReportedInDeal(deal, reported.value.id)
          }
          const { state, events } = yield* fileReport(
            {
              id: yield* ids.next,
              reporterId: reporter.id,
              reportedUserId: reported.value.id,
              dealId: input.dealId,
              reason: input.reason,
              description: input.description
            },
            at
          )
          yield* reports.insert(state)
          yield* outbox.append(events, at)
          return state
        })
      )

    /**
     * An admin resolves a pending report. `suspend_seller` also suspends the reported user's seller
     * profile and rejects their pending offers, in the same transaction, so no buyer can accept an
     * offer of a suspended seller; a reported user without a profile has nothing to suspend. The profile
     * is locked before the offers (core's lock order), as offer and accept lock it before the request.
     */
    const resolve = (caller: User, id: string, action: ResolveAction, notes: string | null) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* now
          const report = yield* foundReport(yield* reports.lock(id))
          yield* requireAdmin(caller)
          const resolved = yield* resolveReport(report, action, notes, at)
          yield* reports.update(resolved.state)
          const events = [...resolved.events]
          if (action === "suspend_seller") {
            const profile = yield* profiles.lockByUserId(report.reportedUserId)
            if (Option.isSome(profile)) {
              const suspended = yield* suspendSellerProfile(profile.value)
              yield* profiles.update(suspended.state)
              const dropped = rejectPendingOffers(yield* offers.lockPendingBySeller(report.reportedUserId))
              yield* offers.updateStatus(dropped.rejected)
              events.push(...suspended.events, ...dropped.events)
            }
          }
          yield* outbox.append(events, at)
          return { ...resolved.state, action, resolvedAt: at }
        })
      )

    return { file, resolve } as const
  })
}) {}
