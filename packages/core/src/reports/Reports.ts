import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { requireDealParty } from "../deals/Policy.js"
import { DealRepo } from "../deals/Repo.js"
import { rejectPendingOffers } from "../offers/Offer.js"
import { OfferRepo } from "../offers/Repo.js"
import { Ids } from "../platform/Ids.js"
import { SellerProfileRepo } from "../sellers/Repo.js"
import { type SellerProfileStatus, suspendSellerProfile } from "../sellers/SellerProfile.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import type { DomainEvent } from "../shared/Events.js"
import { FreeText, Optional, UuidField } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { requireFound } from "../shared/Policy.js"
import { Transactor } from "../shared/Transactor.js"
import { ReportReason, ResolveAction } from "../shared/Values.js"
import { requireAdmin } from "../users/Policy.js"
import { UserRepo } from "../users/Repo.js"
import type { User } from "../users/User.js"
import { ReportAlreadyPending } from "./Errors.js"
import { requireReportedInDeal } from "./Policy.js"
import { ReportRepo } from "./Repo.js"
import { fileReport, resolveReport } from "./Report.js"

/** What a user reports: who, why, and optionally the deal it happened in. */
export const ReportInput = Schema.Struct({
  reportedUserId: UuidField,
  dealId: Optional(UuidField),
  reason: ReportReason,
  description: Optional(FreeText(0, 2000))
})
export type ReportInput = typeof ReportInput.Type

/** How an administrator resolves a report, with notes of their own. */
export const ResolveInput = Schema.Struct({
  action: ResolveAction,
  notes: Optional(FreeText(0, 2000))
})
export type ResolveInput = typeof ResolveInput.Type

/** What a `suspend_seller` resolution did to the reported user's seller profile, for the audit trail. */
export interface Suspension {
  readonly profileId: string
  readonly statusBefore: SellerProfileStatus
  readonly rejectedOfferIds: ReadonlyArray<string>
}

const foundUser = requireFound("user")
const foundDeal = requireFound("deal")
const foundReport = requireFound("report")

/** The report workflows: a user files a report, an administrator resolves it. */
export class Reports extends Effect.Service<Reports>()("@talab/core/Reports", {
  effect: Effect.gen(function* () {
    const reports = yield* ReportRepo
    const users = yield* UserRepo
    const deals = yield* DealRepo
    const profiles = yield* SellerProfileRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox
    const transactor = yield* Transactor
    const ids = yield* Ids

    /**
     * A user reports somebody else; about a deal, only its parties may report, and only each other. One pending
     * report per reporter, reported user and deal: a repeat is refused until the first is resolved.
     */
    const file = (reporter: User, input: ReportInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const reported = yield* foundUser(yield* users.findById(input.reportedUserId))
          const dealId = input.dealId ?? null
          if (dealId !== null) {
            const deal = yield* foundDeal(yield* deals.findById(dealId))
            yield* requireDealParty(deal, reporter)
            yield* requireReportedInDeal(deal, reported.id)
          }
          const { state, events } = yield* fileReport(
            {
              id: yield* ids.next,
              reporterId: reporter.id,
              reportedUserId: reported.id,
              dealId,
              reason: input.reason,
              description: input.description ?? null
            },
            at
          )
          if (!(yield* reports.insertUnlessPending(state))) return yield* Effect.fail(new ReportAlreadyPending())
          yield* outbox.append(events, at)
          return state
        })
      )

    /**
     * An administrator resolves a pending report. `suspend_seller` also suspends the reported user's seller
     * profile and rejects their pending offers, in the same transaction, so no buyer can accept an offer of a
     * suspended seller; a reported user without a profile has nothing to suspend. The profile is locked before
     * the offers (the lock order of the repository ports), as offer and accept lock it before the request.
     */
    const resolve = (caller: User, id: string, { action, notes }: ResolveInput) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          const report = yield* foundReport(yield* reports.lock(id))
          yield* requireAdmin(caller)
          const resolved = yield* resolveReport(report, action, notes ?? null, at)
          yield* reports.update(resolved.state)
          const events: Array<DomainEvent> = [...resolved.events]
          let suspension: Suspension | null = null
          if (action === "suspend_seller") {
            const profile = yield* profiles.lockByUserId(report.reportedUserId)
            if (Option.isSome(profile)) {
              const suspended = yield* suspendSellerProfile(profile.value)
              yield* profiles.update(suspended.state)
              const dropped = rejectPendingOffers(yield* offers.lockPendingBySeller(report.reportedUserId))
              yield* offers.updateStatus(dropped.rejected, at)
              events.push(...suspended.events, ...dropped.events)
              suspension = {
                profileId: profile.value.id,
                statusBefore: profile.value.status,
                rejectedOfferIds: dropped.rejected.map((offer) => offer.id)
              }
            }
          }
          yield* outbox.append(events, at)
          return { report: { ...resolved.state, action, resolvedAt: at }, suspension }
        })
      )

    return { file, resolve } as const
  })
}) {}
