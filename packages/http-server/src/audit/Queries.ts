import { SqlClient } from "@effect/sql"
import type { AuditAction, AuditChanges, AuditEntry } from "@talab/core"
import * as Effect from "effect/Effect"
import { offsetOf, type Paged, type PageRequest, rowsAndTotal } from "../http/Paging.js"

/** The filters of the audit log; each one given narrows it. */
interface AuditFilters {
  readonly action?: AuditAction | undefined
  readonly actorId?: string | undefined
  readonly targetId?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

interface AuditRow {
  readonly id: string
  readonly actor_type: "admin" | "operator"
  readonly actor_id: string | null
  readonly actor_name: string | null
  readonly actor_host: string | null
  readonly action: AuditAction
  readonly target_type: NonNullable<AuditEntry["target"]>["type"] | null
  readonly target_id: string | null
  readonly changes: AuditChanges | string
  readonly request_id: string | null
  readonly created_at: Date
}

const entryOf = (row: AuditRow): AuditEntry => ({
  id: row.id,
  actor:
    row.actor_type === "admin"
      ? { type: "admin", id: row.actor_id!, name: row.actor_name }
      : { type: "operator", host: row.actor_host ?? "" },
  action: row.action,
  target: row.target_type === null || row.target_id === null ? null : { type: row.target_type, id: row.target_id },
  // jsonb arrives parsed from PostgreSQL's driver and PGlite's alike; a string is parsed once more to be sure.
  changes: typeof row.changes === "string" ? (JSON.parse(row.changes) as AuditChanges) : row.changes,
  requestId: row.request_id,
  createdAt: new Date(row.created_at)
})

/** The audit log as admins read it. */
export class AuditQueries extends Effect.Service<AuditQueries>()("Audit/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const where = (filters: AuditFilters) => {
      const conditions = [
        ...(filters.action === undefined ? [] : [sql`action = ${filters.action}`]),
        ...(filters.actorId === undefined ? [] : [sql`actor_id = ${filters.actorId}`]),
        ...(filters.targetId === undefined ? [] : [sql`target_id = ${filters.targetId}`]),
        ...(filters.from === undefined ? [] : [sql`created_at >= ${filters.from}`]),
        ...(filters.to === undefined ? [] : [sql`created_at < ${filters.to}`])
      ]
      return conditions.length === 0 ? sql`` : sql`WHERE ${sql.and(conditions)}`
    }

    /** Entries newest first (ties by id), filtered. */
    const list = (filters: AuditFilters, page: PageRequest): Effect.Effect<Paged<AuditEntry>> =>
      rowsAndTotal(
        sql<AuditRow>`
          SELECT * FROM audit_log ${where(filters)}
          ORDER BY created_at DESC, id DESC
          LIMIT ${page.perPage} OFFSET ${offsetOf(page)}`,
        sql<{ total: number | string }>`SELECT COUNT(*) AS total FROM audit_log ${where(filters)}`
      ).pipe(
        Effect.map(({ rows, total }) => ({ items: rows.map(entryOf), total: Number(total[0]?.total ?? 0) })),
        Effect.orDie
      )

    return { list } as const
  })
}) {}
