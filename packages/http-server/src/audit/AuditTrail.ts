import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { SqlClient } from "@effect/sql"
import {
  type AuditAction,
  type AuditActor,
  type AuditChanges,
  type AuditTarget,
  Ids,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { requestState } from "../http/RequestState.js"

/** What an action records besides who did it and when. */
export interface AuditRecord {
  readonly action: AuditAction
  readonly target: AuditTarget | null
  readonly changes?: AuditChanges
}

/** An admin as an audit entry names them: their id and the name they have now. */
const adminActor = (user: User): AuditActor => ({ type: "admin", id: user.id, name: user.name })

/** The operator at a `talab` command on this machine. */
const operatorActor = (): AuditActor => ({ type: "operator", host: hostname() })

/**
 * Records what an operator's `talab` command did, in the transaction in context when there is one: the command's
 * change and its entry commit together.
 */
export const recordOperatorAction = (record: AuditRecord) =>
  Effect.gen(function* () {
    const at = new Date(yield* Clock.currentTimeMillis)
    yield* appendAuditEntry(randomUUID(), operatorActor(), record, null, at)
  })

/**
 * Inserts one audit entry with the connection in context: inside a transaction, it commits or rolls back with
 * it. The database refuses to change it afterwards (migration 0027).
 */
const appendAuditEntry = (id: string, actor: AuditActor, record: AuditRecord, requestId: string | null, at: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO audit_log ${sql.insert({
      id,
      actor_type: actor.type,
      actor_id: actor.type === "admin" ? actor.id : null,
      actor_name: actor.type === "admin" ? actor.name : null,
      actor_host: actor.type === "operator" ? actor.host : null,
      action: record.action,
      target_type: record.target?.type ?? null,
      target_id: record.target?.id ?? null,
      changes: JSON.stringify(record.changes ?? {}),
      request_id: requestId,
      created_at: at
    })}`
  })

/** The audit trail of the API: an admin's action and its entry, in one transaction. */
export class AuditTrail extends Effect.Service<AuditTrail>()("Audit/Trail", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transactor = yield* Transactor
    const ids = yield* Ids

    const record = (admin: User, entry: AuditRecord) =>
      Effect.gen(function* () {
        const { requestId } = yield* requestState
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* appendAuditEntry(yield* ids.next, adminActor(admin), entry, requestId ?? null, at).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.orDie
        )
      })

    /**
     * Runs `action` (a use case, whose own transaction becomes a savepoint of this one) and records what it did
     * in the same transaction: a failed or refused action leaves no entry, and an entry that cannot be written
     * undoes the action.
     */
    const audited = <A, E, R>(admin: User, action: Effect.Effect<A, E, R>, entryOf: (result: A) => AuditRecord) =>
      transactor.transaction(Effect.tap(action, (result) => record(admin, entryOf(result))))

    return { audited, record } as const
  })
}) {}
