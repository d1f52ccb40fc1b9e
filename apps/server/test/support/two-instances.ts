import type { TestServer, TestServerOptions } from "@talab/testkit"
import { afterAll, beforeAll } from "vitest"
import { startServer } from "./harness.js"
import { createPostgresDatabase } from "./postgres.js"

export type PostgresDatabase = Awaited<ReturnType<typeof createPostgresDatabase>>

export interface TwoInstances {
  readonly a: TestServer
  readonly b: TestServer
  readonly database: PostgresDatabase
}

const started = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error("the two instances are used before they started (beforeAll)")
  return value
}

type SharedOptions = Omit<TestServerOptions, "databaseUrl">

/**
 * Two instances on one fresh PostgreSQL database, as behind a load balancer, started before the suite's tests
 * and closed (the database dropped) after them. `options` names what they share besides the database (Redis,
 * settings); given as a function, it is read when they start, after the suite's earlier `beforeAll` hooks (a
 * store they share started there, and stopped by an `afterAll` registered before this, which runs after their
 * close). Read the instances from the returned object inside tests and hooks.
 */
export const useTwoInstances = (options: SharedOptions | (() => SharedOptions) = {}): TwoInstances => {
  let database: PostgresDatabase | undefined
  beforeAll(async () => {
    database = await createPostgresDatabase()
  }, 60_000)
  afterAll(async () => {
    await database?.drop()
  }, 60_000)
  const url = () => started(database).url
  const a = useInstanceBeside(url, options)
  const b = useInstanceBeside(url, options)
  return {
    get a() {
      return a()
    },
    get b() {
      return b()
    },
    get database() {
      return started(database)
    }
  }
}

/**
 * An instance on a suite's PostgreSQL database (its URL read when it starts, after the suite's earlier
 * `beforeAll` hooks), as a load balancer would put one beside another: for writes that must meet another
 * instance's. `options` as for `useTwoInstances`. Closed after the suite's tests, before what earlier hooks
 * started (hooks after run in reverse).
 */
export const useInstanceBeside = (
  databaseUrl: () => string,
  options: SharedOptions | (() => SharedOptions) = {}
): (() => TestServer) => {
  let server: TestServer | undefined
  beforeAll(async () => {
    const shared = typeof options === "function" ? options() : options
    server = await startServer({ ...shared, databaseUrl: databaseUrl() })
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  }, 60_000)
  return () => started(server)
}
