import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DomainEvent } from "../shared/Events.js"
import { moved, type Transition } from "../shared/Transition.js"
import { ReportReason, ResolveAction } from "../shared/Values.js"
import { CannotReportSelf, ReportNotPending } from "./Errors.js"

/**
 * Where a report stands: `pending` until an administrator acts; `dismissed` (action `dismiss`) or `resolved`
 * (actions `warn` and `suspend_seller`).
 */
export const ReportStatus = Schema.Literal("pending", "resolved", "dismissed")
export type ReportStatus = typeof ReportStatus.Type

/** A user's report about a seller. */
export const Report = Schema.Struct({
  id: Schema.UUID,
  reporterId: Schema.UUID,
  reportedUserId: Schema.UUID,
  dealId: Schema.NullOr(Schema.UUID),
  reason: ReportReason,
  description: Schema.NullOr(Schema.String),
  status: ReportStatus,
  action: Schema.NullOr(ResolveAction),
  resolutionNotes: Schema.NullOr(Schema.String),
  resolvedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf
})
export interface Report extends Schema.Schema.Type<typeof Report> {}

/** What a reporter gives to file a report: whom it is about, the deal if any, the reason and a description. */
export type NewReport = Pick<Report, "id" | "reporterId" | "reportedUserId" | "dealId" | "reason" | "description">

/** A user files a report about somebody else; it starts pending. */
export const fileReport = (input: NewReport, now: Date): Transition<Report, CannotReportSelf> =>
  input.reporterId === input.reportedUserId
    ? Either.left(new CannotReportSelf())
    : moved({ ...input, status: "pending", action: null, resolutionNotes: null, resolvedAt: null, createdAt: now }, [
        DomainEvent.ReportFiled({
          reportId: input.id,
          reporterId: input.reporterId,
          reportedUserId: input.reportedUserId
        })
      ])

/** An admin resolves a pending report: `dismiss` dismisses it, `warn` and `suspend_seller` resolve it. */
export const resolveReport = (
  report: Report,
  action: ResolveAction,
  notes: string | null,
  now: Date
): Transition<Report, ReportNotPending> => {
  if (report.status !== "pending") return Either.left(new ReportNotPending())
  const status = action === "dismiss" ? "dismissed" : "resolved"
  return moved({ ...report, status, action, resolutionNotes: notes, resolvedAt: now }, [
    DomainEvent.ReportResolved({ reportId: report.id, action, status })
  ])
}
