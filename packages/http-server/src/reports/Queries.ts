import { SqlClient, SqlSchema } from "@effect/sql"
import { ADMIN_REPORT_MESSAGES_MAX, type AdminReportDetail, type AdminReportItem } from "@talab/contract"
import { Deal, Message, Report, type ReportStatus, SellerProfile, User } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
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

/** One report with its context (the reported user's profile and report count, the whole deal), as `nested` gathers it. */
const ReportDetailRow = Schema.Struct({
  ...Report.omit("reporterId", "reportedUserId", "dealId").fields,
  reporter: ReportUser,
  reportedUser: Schema.Struct({
    ...ReportUser.fields,
    sellerProfile: Schema.NullOr(SellerProfile),
    reportsReceived: Schema.Number
  }),
  deal: Schema.NullOr(Deal)
})

const reportDetailColumns = [
  columnsAs("rp", fieldNames(ReportDetailRow, "reporter", "reportedUser", "deal")),
  columnsAs("ru", fieldNames(ReportUser), "reporter"),
  columnsAs("tu", fieldNames(ReportUser), "reportedUser"),
  columnsAs("sp", fieldNames(SellerProfile), "reportedUser.sellerProfile"),
  columnsAs("d", fieldNames(Deal), "deal")
].join(", ")

const ReportMessage = Message.pick("id", "seq", "senderId", "kind", "messageText", "createdAt")

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

    const detailRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: ReportDetailRow,
      execute: (id) =>
        sql<Record<string, unknown>>`
          SELECT ${sql.literal(reportDetailColumns)},
                 (SELECT COUNT(*)::int FROM reports x WHERE x.reported_user_id = rp.reported_user_id)
                   AS "reportedUser.reportsReceived"
          FROM reports rp
          JOIN users ru ON ru.id = rp.reporter_id
          JOIN users tu ON tu.id = rp.reported_user_id
          LEFT JOIN seller_profiles sp ON sp.user_id = rp.reported_user_id
          LEFT JOIN deals d ON d.id = rp.deal_id
          WHERE rp.id = ${id}`.pipe(Effect.map((rows) => rows.map(nested)))
    })

    // The newest messages, one more than shown to tell whether there are older ones.
    const conversation = SqlSchema.findAll({
      Request: Schema.String,
      Result: ReportMessage,
      execute: (conversationId) =>
        sql`SELECT ${sql.literal(columnsAs("m", fieldNames(ReportMessage)))}
            FROM messages m WHERE m.conversation_id = ${conversationId}
            ORDER BY m.seq DESC LIMIT ${ADMIN_REPORT_MESSAGES_MAX + 1}`
    })

    /**
     * One report with its context and the newest {@link ADMIN_REPORT_MESSAGES_MAX} messages of its deal's
     * conversation, oldest first (none without a deal).
     */
    const detail = (id: string): Effect.Effect<Option.Option<typeof AdminReportDetail.Type>> =>
      Effect.gen(function* () {
        const row = yield* detailRow(id)
        if (Option.isNone(row)) return Option.none()
        const newest = row.value.deal === null ? [] : yield* conversation(row.value.deal.conversationId)
        const messages = newest.slice(0, ADMIN_REPORT_MESSAGES_MAX).reverse()
        return Option.some({ ...row.value, messages, hasMoreMessages: newest.length > ADMIN_REPORT_MESSAGES_MAX })
      }).pipe(Effect.orDie)

    return { list, detail } as const
  })
}) {}
