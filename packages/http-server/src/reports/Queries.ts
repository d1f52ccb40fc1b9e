import { SqlClient, SqlSchema } from "@effect/sql"
import type { AdminReportItem } from "@talab/contract"
import { Deal, Report, type ReportStatus, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { columnsAs, fieldNames, nested } from "../db/Rows.js"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"

// A deleted account has no number left: it is shown by its id, as every other view shows it.
const ReportUser = Schema.Struct({
  ...User.pick("id", "name").fields,
  phoneNumber: Schema.NullOr(User.fields.phoneNumber),
  deleted: Schema.Boolean
})
const ReportDeal = Deal.pick("id", "requestId", "status")

/** A report with its reporter, reported user and deal, as `nested` gathers the row. */
const ReportItemRow = Schema.Struct({
  ...Report.omit("reporterId", "reportedUserId", "dealId").fields,
  reporter: ReportUser,
  reportedUser: ReportUser,
  deal: Schema.NullOr(ReportDeal)
})

const reportItemColumns = [
  columnsAs("rp", fieldNames(ReportItemRow, "reporter", "reportedUser", "deal")),
  columnsAs("ru", fieldNames(ReportUser), "reporter"),
  columnsAs("tu", fieldNames(ReportUser), "reportedUser"),
  columnsAs("d", fieldNames(ReportDeal), "deal")
].join(", ")

const Total = Schema.Struct({ total: Schema.Number })

/** Read models of reports. */
export class ReportQueries extends Effect.Service<ReportQueries>()("Reports/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // reports_by_status (status, created_at DESC, id DESC) with a status, reports_newest without.
    const where = (status: ReportStatus | undefined) =>
      status === undefined ? sql`` : sql`WHERE rp.status = ${status}`

    const page = (status: ReportStatus | undefined, request: PageRequest) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: ReportItemRow,
        execute: () =>
          sql<Record<string, unknown>>`
          SELECT ${sql.literal(reportItemColumns)}
          FROM reports rp
          JOIN users ru ON ru.id = rp.reporter_id
          JOIN users tu ON tu.id = rp.reported_user_id
          LEFT JOIN deals d ON d.id = rp.deal_id
          ${where(status)}
          ORDER BY rp.created_at DESC, rp.id DESC
          LIMIT ${request.perPage} OFFSET ${offsetOf(request)}`.pipe(Effect.map((rows) => rows.map(nested)))
      })(undefined)

    const total = (status: ReportStatus | undefined) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Total,
        execute: () => sql`SELECT COUNT(*) AS total FROM reports rp ${where(status)}`
      })(undefined)

    /** Reports newest first, in every state unless one is asked for. */
    const list = (
      status: ReportStatus | undefined,
      request: PageRequest
    ): Effect.Effect<Paged<typeof AdminReportItem.Type>> =>
      rowsAndTotal(page(status, request), total(status)).pipe(
        Effect.map(({ rows, total }) => ({ total: total.total, items: rows })),
        Effect.orDie
      )

    return { list } as const
  })
}) {}
