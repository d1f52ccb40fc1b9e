import * as Data from "effect/Data"

/** An administrator tried to resolve a report that is resolved or dismissed already. */
export class ReportNotPending extends Data.TaggedError("ReportNotPending")<{}> {
  readonly code = "REPORT_NOT_PENDING" as const
}

/**
 * The reporter already has a pending report against this user about this deal (or, both without a deal, about
 * no deal): the admins have it; another one adds nothing until it is resolved.
 */
export class ReportAlreadyPending extends Data.TaggedError("ReportAlreadyPending")<{}> {
  readonly code = "REPORT_ALREADY_PENDING" as const
}

/** A user tried to report themself. */
export class CannotReportSelf extends Data.TaggedError("CannotReportSelf")<{}> {
  readonly code = "CANNOT_REPORT_SELF" as const
}
