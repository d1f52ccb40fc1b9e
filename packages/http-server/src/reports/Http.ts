import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import { changed, Reports, requireAdmin, requireFound } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AuditTrail } from "../audit/AuditTrail.js"
import { requestLanguage, respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { ReportQueries } from "./Queries.js"

const ReportsHttp = HttpApiBuilder.group(Api, "reports", (handlers) =>
  Effect.gen(function* () {
    const service = yield* Reports
    return handlers.handle("file", ({ payload }) =>
      respond(
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          return yield* service.file(user, payload)
        })
      )
    )
  })
)

const AdminReportsHttp = HttpApiBuilder.group(Api, "adminReports", (handlers) =>
  Effect.gen(function* () {
    const service = yield* Reports
    const queries = yield* ReportQueries
    const audit = yield* AuditTrail
    return handlers
      .handle("list", ({ urlParams }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* requireAdmin(user)
            const page = pageRequest(urlParams)
            const { items, total } = yield* queries.list(urlParams.status, page)
            return { reports: items, pagination: paginationFor(page, total) }
          })
        )
      )
      .handle("get", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* requireAdmin(user)
            // Reading the conversation is recorded in the read's own transaction: no entry, no answer.
            return yield* audit.audited(
              user,
              Effect.flatMap(queries.detail(path.id), requireFound("report")),
              (report) => ({ action: "report.view", target: { type: "report", id: report.id } })
            )
          })
        )
      )
      .handle("resolve", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { report } = yield* audit.audited(
              user,
              service.resolve(user, path.id, payload),
              ({ report, suspension }) => ({
                action: "report.resolve",
                target: { type: "report", id: report.id },
                changes: {
                  status: changed("pending", report.status),
                  action: changed(null, report.action),
                  notes: changed(null, report.resolutionNotes),
                  ...(suspension === null
                    ? {}
                    : {
                        seller_profile_id: changed(null, suspension.profileId),
                        seller_profile_status: changed(suspension.statusBefore, "suspended"),
                        rejected_offer_ids: changed([], suspension.rejectedOfferIds)
                      })
                }
              })
            )
            return { data: report, message: translate("report_resolved", yield* requestLanguage) }
          })
        )
      )
  })
)

/** Reports and their review by the admin: the REST handlers with their own services. */
export const ReportsLive = Layer.mergeAll(ReportsHttp, AdminReportsHttp).pipe(
  Layer.provide([Reports.Default, ReportQueries.Default, AuditTrail.Default])
)
