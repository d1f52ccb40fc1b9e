import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import { insertNew, unchanged, updateRow } from "../memory/Rows.js"
import { MemoryStore } from "../memory/Store.js"
import { ReportRepo } from "./Repo.js"

/** {@link ReportRepo} over the {@link MemoryStore}. */
export const MemoryReportRepo = Layer.effect(
  ReportRepo,
  Effect.map(MemoryStore, (store) =>
    ReportRepo.of({
      insert: (report) =>
        store.write((t) => [undefined, insertNew(t, "reports", report.id, report, "reports_pkey")] as const),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.reports, id), t)),
      update: (report) =>
        store.write(updateRow("reports", report, ["reporterId", "reportedUserId", "dealId", "createdAt"]))
    })
  )
)
