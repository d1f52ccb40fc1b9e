import { SqlClient, SqlSchema } from "@effect/sql"
import type { AdminReportItem } from "@talab/contract"
import { DealStatus, ReportReason, ReportStatus, ResolveAction } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"

const Nullable = Schema.NullOr(Schema.String)

const ReportRow = Schema.Struct({
  id: Schema.String,
  reporter_id: Schema.String,
  reporter_name: Nullable,
  reporter_phone_number: Schema.String,
  reported_user_id: Schema.String,
  reported_name: Nullable,
  reported_phone_number: Schema.String,
  deal_id: Nullable,
  deal_request_id: Nullable,
  deal_status: Schema.NullOr(DealStatus),
  reason: ReportReason,
  description: Nullable,
  status: ReportStatus,
  action: Schema.NullOr(ResolveAction),
  resolution_notes: Nullable,
  resolved_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf
})

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
        Result: ReportRow,
        execute: () => sql`
          SELECT rp.id, rp.reporter_id, ru.name AS reporter_name, ru.phone_number AS reporter_phone_number,
                 rp.reported_user_id, tu.name AS reported_name, tu.phone_number AS reported_phone_number,
                 rp.deal_id, d.request_id AS deal_request_id, d.status AS deal_status,
                 rp.reason, rp.description, rp.status, rp.action, rp.resolution_notes, rp.resolved_at, rp.created_at
          FROM reports rp
          JOIN users ru ON ru.id = rp.reporter_id
          JOIN users tu ON tu.id = rp.reported_user_id
          LEFT JOIN deals d ON d.id = rp.deal_id
          ${where(status)}
          ORDER BY rp.created_at DESC, rp.id DESC
          LIMIT ${request.perPage} OFFSET ${offsetOf(request)}`
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
        Effect.map(({ rows, total }) => ({
          total: total.total,
          items: rows.map((row) => ({
            id: row.id,
            reporter: { id: row.reporter_id, name: row.reporter_name, phone_number: row.reporter_phone_number },
            reported_user: {
              id: row.reported_user_id,
              name: row.reported_name,
              phone_number: row.reported_phone_number
            },
            deal:
              row.deal_id === null || row.deal_request_id === null || row.deal_status === null
                ? null
                : { id: row.deal_id, request_id: row.deal_request_id, status: row.deal_status },
            reason: row.reason,
            description: row.description,
            status: row.status,
            action: row.action,
            notes: row.resolution_notes,
            resolved_at: row.resolved_at,
            created_at: row.created_at
          }))
        })),
        Effect.orDie
      )

    return { list } as const
  })
}) {}
