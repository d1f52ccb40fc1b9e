import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"
import { IDEMPOTENCY_KEY_TTL_MS, RUNNING_CLAIM_TIMEOUT_MS } from "./IdempotencyKey.js"

/** An answer kept for a key. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | null
}

/** What claiming a key found. */
export type Claim =
  | { readonly _tag: "Claimed"; readonly claimId: string }
  | { readonly _tag: "Running"; readonly requestHash: string }
  | { readonly _tag: "Completed"; readonly requestHash: string; readonly answer: StoredAnswer }

interface KeyRow {
  readonly request_hash: string
  readonly state: "running" | "completed"
  readonly status: number | null
  readonly headers: Record<string, string> | string | null
  readonly body: string | null
}

export interface KeyRef {
  readonly scope: string
  readonly key: string
}

/*
 * PostgreSQL-shaped by design: the INSERT … ON CONFLICT claim is what makes one call run among concurrent
 * ones on every instance. Infrastructure failures are defects (a 503 when the database is unreachable).
 */
export const makeIdempotencyStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Claims the key for a run, or answers what holds it. A row past its expiry, or a run of the same request
   * that has held the key past the timeout (its instance is gone), is taken over.
   */
  const claimOnce = (ref: KeyRef, requestHash: string, now: number) =>
    Effect.gen(function* () {
      const claimId = randomUUID()
      const at = new Date(now)
      const claimed = yield* sql<{ claim_id: string }>`
        INSERT INTO idempotency_keys AS k
          (scope, key, request_hash, claim_id, state, created_at, locked_at, expires_at)
        VALUES (${ref.scope}, ${ref.key}, ${requestHash}, ${claimId}, 'running', ${at}, ${at},
          ${new Date(now + IDEMPOTENCY_KEY_TTL_MS)})
        ON CONFLICT (scope, key) DO UPDATE SET
          request_hash = EXCLUDED.request_hash, claim_id = EXCLUDED.claim_id, state = 'running',
          status = NULL, headers = NULL, body = NULL,
          created_at = EXCLUDED.created_at, locked_at = EXCLUDED.locked_at, expires_at = EXCLUDED.expires_at
        WHERE k.expires_at <= ${at}
          OR (k.state = 'running' AND k.locked_at <= ${new Date(now - RUNNING_CLAIM_TIMEOUT_MS)}
            AND k.request_hash = EXCLUDED.request_hash)
        RETURNING claim_id`
      if (claimed[0]?.claim_id === claimId) return { _tag: "Claimed", claimId } as Claim
      const [row] = yield* sql<KeyRow>`
        SELECT request_hash, state, status, headers, body FROM idempotency_keys
        WHERE scope = ${ref.scope} AND key = ${ref.key}`
      if (row === undefined) return undefined
      if (row.state === "running") return { _tag: "Running", requestHash: row.request_hash } as Claim
      const headers = typeof row.headers === "string" ? JSON.parse(row.headers) : (row.headers ?? {})
      return {
        _tag: "Completed",
        requestHash: row.request_hash,
        answer: { status: row.status ?? 200, headers, body: row.body }
      } as Claim
    })

  return {
    /** Claims the key; a row released between the two statements is claimed again. */
    claim: (ref: KeyRef, requestHash: string, now: number): Effect.Effect<Claim> =>
      Effect.gen(function* () {
        for (let attempt = 0; attempt < 3; attempt++) {
          const found = yield* claimOnce(ref, requestHash, now)
          if (found !== undefined) return found
        }
        return { _tag: "Running", requestHash } as Claim
      }).pipe(Effect.orDie),

    /** Keeps the answer of the run that holds the claim (a run taken over from it keeps its own). */
    complete: (ref: KeyRef, claimId: string, answer: StoredAnswer) =>
      sql`
        UPDATE idempotency_keys
        SET state = 'completed', status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}::jsonb,
          body = ${answer.body}
        WHERE scope = ${ref.scope} AND key = ${ref.key} AND claim_id = ${claimId}`.pipe(Effect.asVoid, Effect.orDie),

    /** Frees the key of the run that holds the claim, so the next call with it runs. */
    release: (ref: KeyRef, claimId: string) =>
      sql`DELETE FROM idempotency_keys WHERE scope = ${ref.scope} AND key = ${ref.key} AND claim_id = ${claimId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
  } as const
})
