import { type Deal, isParty, NotFound, type Report, ValidationFailed } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** A report that must exist (404 otherwise). */
export const foundReport = (report: Option.Option<Report>): Effect.Effect<Report, NotFound> =>
  Option.match(report, { onNone: () => Effect.fail(new NotFound({ resource: "report" })), onSome: Effect.succeed })

/** A report about a deal is about one of its parties. */
export const requireReportedInDeal = (deal: Pick<Deal, "buyerId" | "sellerId">, reportedUserId: string) =>
  isParty(deal, reportedUserId)
    ? Effect.void
    : Effect.fail(ValidationFailed.field("reported_user_id", "reported_user_not_in_deal"))
