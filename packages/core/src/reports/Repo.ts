import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Report } from "./Report.js"

/** Port: stores reports about users. */
export class ReportRepo extends Context.Tag("@talab/core/ReportRepo")<
  ReportRepo,
  {
    /**
     * Inserts a report unless its reporter already has one pending against the same user about the same deal
     * (both without a deal counting as the same), committed or committing meanwhile; answers whether it did.
     * The check and the insert are one statement.
     */
    readonly insertUnlessPending: (report: Report) => Effect.Effect<boolean>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Report>>
    readonly update: (report: Report) => Effect.Effect<void>
  }
>() {}
