import { SqlClient, SqlSchema } from "@effect/sql"
import { ReportReason, ReportRepo, ReportStatus, ResolveAction } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { byUuid, column, NullableString, NullableTimestamp, Timestamp } from "../db/Rows.js"

export const ReportRow = Schema.Struct({
  id: Schema.String,
  reporterId: column("reporter_id", Schema.String),
  reportedUserId: column("reported_user_id", Schema.String),
  dealId: column("deal_id", Schema.NullOr(Schema.String)),
  reason: ReportReason,
  description: NullableString,
  status: ReportStatus,
  action: Schema.NullOr(ResolveAction),
  resolutionNotes: column("resolution_notes", NullableString),
  resolvedAt: column("resolved_at", NullableTimestamp),
  createdAt: column("created_at", Timestamp)
})

export const SqlReportRepo = Layer.effect(
  ReportRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: ReportRow,
      execute: (row) => sql`INSERT INTO reports ${sql.insert(row)}`
    })
    const lock = SqlSchema.findOne({
      Request: Schema.String,
      Result: ReportRow,
      execute: (id) => sql`SELECT * FROM reports WHERE id = ${id} FOR UPDATE`
    })
    const update = SqlSchema.void({
      Request: ReportRow,
      execute: (row) => sql`
        UPDATE reports SET ${sql.update(row, ["id", "reporter_id", "reported_user_id", "deal_id", "created_at"])}
        WHERE id = ${row.id}`
    })

    return ReportRepo.of({
      insert: (report) => insert(report).pipe(Effect.orDie),
      lock: (id) => byUuid(lock)(id).pipe(Effect.orDie),
      update: (report) => update(report).pipe(Effect.orDie)
    })
  })
)
