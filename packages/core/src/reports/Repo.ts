import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Report } from "./Report.js"

/** Port: stores reports about users. */
export class ReportRepo extends Context.Tag("@talab/core/ReportRepo")<
  ReportRepo,
  {
    readonly insert: (report: Report) => Effect.Effect<void>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Report>>
    readonly update: (report: Report) => Effect.Effect<void>
  }
>() {}
