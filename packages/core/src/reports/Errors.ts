import * as Data from "effect/Data"

/** An administrator tried to resolve a report that is resolved or dismissed already. */
export class ReportNotPending extends Data.TaggedError("ReportNotPending")<{}> {
  readonly code = "REPORT_NOT_PENDING" as const
}

/** A user tried to report themself. */
export class CannotReportSelf extends Data.TaggedError("CannotReportSelf")<{}> {
  readonly code = "CANNOT_REPORT_SELF" as const
}
