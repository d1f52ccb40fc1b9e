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

    // The arbiter is the partial unique index reports_one_pending_per_reporter (NULLS NOT DISTINCT: two reports
    // without a deal are about the same deal).
    const insertUnlessPending = SqlSchema.findAll({
      Request: ReportRow,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (row) => sql`
        INSERT INTO reports ${sql.insert(row)}
        ON CONFLICT (reporter_id, reported_user_id, deal_id) WHERE status = 'pending' DO NOTHING
        RETURNING id`
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
      insertUnlessPending: (report) =>
        insertUnlessPending(report).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      lock: (id) => lock(id).pipe(Effect.orDie),
      update: (report) => update(report).pipe(Effect.orDie)
    })
  })
)
