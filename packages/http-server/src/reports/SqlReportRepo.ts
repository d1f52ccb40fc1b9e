import { SqlClient, SqlSchema } from "@effect/sql"
import { Report, ReportRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** A report as stored: the entity under its column names. */
const ReportRow = snakeCaseKeys(Report.fields)

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
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (report) => update(report).pipe(Effect.orDie)
    })
  })
)
