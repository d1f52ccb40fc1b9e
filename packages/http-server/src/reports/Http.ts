import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import { Reports, requireAdmin } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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
      .handle("resolve", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const resolved = yield* service.resolve(user, path.id, payload)
            return { data: resolved, message: translate("report_resolved", yield* requestLanguage) }
          })
        )
      )
  })
)

/** Reports and their review by the admin: the REST handlers with their own services. */
export const ReportsLive = Layer.mergeAll(ReportsHttp, AdminReportsHttp).pipe(
  Layer.provide([Reports.Default, ReportQueries.Default])
)
