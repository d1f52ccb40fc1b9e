import * as Data from "effect/Data"

/** The deal is completed or cancelled already; only an `accepted` deal can be completed or cancelled. */
export class DealNotActive extends Data.TaggedError("DealNotActive")<{}> {
  readonly code = "DEAL_NOT_ACTIVE" as const
}
