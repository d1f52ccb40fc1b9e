import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowWhere, unchanged, updateRow } from "../memory/Rows.js"
import { MemoryStore } from "../memory/Store.js"
import { ReportRepo } from "./Repo.js"

/** {@link ReportRepo} over the {@link MemoryStore}. */
export const MemoryReportRepo = Layer.effect(
  ReportRepo,
  Effect.map(MemoryStore, (store) =>
    ReportRepo.of({
      insertUnlessPending: (report) =>
        store.write((t) => {
          const pending = Option.isSome(
            rowWhere(
              t.reports,
              (r) =>
                r.status === "pending" &&
                r.reporterId === report.reporterId &&
                r.reportedUserId === report.reportedUserId &&
                r.dealId === report.dealId
            )
          )
          if (report.status === "pending" && pending) return unchanged(false, t)
          return [true, insertNew(t, "reports", report.id, report, "reports_pkey")] as const
        }),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.reports, id), t)),
      update: (report) =>
        store.write(updateRow("reports", report, ["reporterId", "reportedUserId", "dealId", "createdAt"]))
    })
  )
)
