import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, expect } from "vitest"
import type { Backend, Response } from "./harness.js"
import { createPostgresDatabase } from "./postgres.js"

export const ARABIC = /[\u0600-\u06FF]/
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Checks the error envelope: status, code, a message, and (when given) exactly the fields of `details`. */
export const expectError = (response: Response, status: number, code: string, detailFields?: ReadonlyArray<string>) => {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code })
  expect(response.body.success).toBe(false)
  expect(typeof response.body.error.message).toBe("string")
  expect(response.body.error.message.length).toBeGreaterThan(0)
  expect(typeof response.body.error.details).toBe("object")
  if (detailFields !== undefined)
    expect(Object.keys(response.body.error.details).sort()).toEqual([...detailFields].sort())
  return response.body.error as { code: string; message: string; details: Record<string, Array<string>> }
}

/**
 * A server on the backend, plus its PostgreSQL URL on the postgres backend (undefined on PGlite), for
 * reading back rows the API does not show.
 */
export const useServerAndDatabase = (backend: Backend, options: TestServerOptions = {}) => {
  let server: TestServer | undefined
  let database: { url: string; drop: () => Promise<void> } | undefined
  beforeAll(async () => {
    if (backend === "postgres") database = await createPostgresDatabase()
    server = await startTestServer(database ? { ...options, databaseUrl: database.url } : options)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  }, 60_000)
  return {
    server: () => {
      if (!server) throw new Error("server not started")
      return server
    },
    databaseUrl: () => database?.url
  }
}

/** Runs one query on a database over a throwaway connection. */
export const query = <A extends object>(
  url: string,
  statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>
) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

/** `+966 50-123 4567` for `+966501234567`: how people type numbers. */
export const spacedAndDashed = (e164: string) =>
  `${e164.slice(0, 4)} ${e164.slice(4, 6)}-${e164.slice(6, 9)} ${e164.slice(9)}`
