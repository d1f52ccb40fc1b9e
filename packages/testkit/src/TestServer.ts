import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Ids } from "@talab/core"
import { AppConfig, type AppSettings, AppLive, MemoryFileStore, MemoryRateLimiter, MigratedDatabaseLayer, DatabaseOptions } from "@talab/http-server"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { createServer } from "node:http"
import { AdjustableClock } from "./Clock.js"
import { PushRecorder, SmsRecorder } from "./Recorders.js"

export interface TestServerOptions {
  /** Settings to change (rate limits, admin phone numbers, …). */
  readonly settings?: Partial<AppSettings>
  /** A PostgreSQL URL to run on instead of the in-memory embedded database. */
  readonly databaseUrl?: string
}

/** A running marketplace for tests, with what it sent and a clock you can move. */
export interface TestServer {
  /** Base of the REST API, e.g. http://127.0.0.1:54321/api/v1 */
  readonly apiUrl: string
  /** Origin of the server, e.g. http://127.0.0.1:54321 */
  readonly baseUrl: string
  /** WebSocket address, e.g. ws://127.0.0.1:54321/ws */
  readonly wsUrl: string
  readonly sms: SmsRecorder
  readonly pushes: PushRecorder
  readonly clock: AdjustableClock
  /** Stops the server and drops its database. */
  readonly close: () => Promise<void>
}

/**
 * Starts the whole marketplace on a free loopback port: PGlite in memory (or the given PostgreSQL),
 * in-memory SMS, push, files and rate limits, and an adjustable clock.
 */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const sms = new SmsRecorder()
  const pushes = new PushRecorder()
  const clock = new AdjustableClock()
  const settings = AppConfig.make({
    port: 0,
    host: "127.0.0.1",
    jwtSecret: Redacted.make("testkit-secret-testkit-secret-testkit-secret"),
    ...options.settings
  })
  const database = MigratedDatabaseLayer(
    options.databaseUrl ? DatabaseOptions.Postgres({ url: Redacted.make(options.databaseUrl) }) : DatabaseOptions.Memory()
  )
  const layer = AppLive.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provide(Layer.mergeAll(sms.layer, pushes.layer, MemoryFileStore.layer, MemoryRateLimiter.layer(), Ids.Random)),
    Layer.provide(database),
    Layer.provide(Layer.succeed(AppConfig, settings)),
    Layer.provide(Layer.setClock(clock))
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const server = (context as any).unsafeMap.get(HttpServer.HttpServer.key) as HttpServer.HttpServer
  const address = server.address as HttpServer.TcpAddress
  const baseUrl = `http://127.0.0.1:${address.port}`
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/v1`,
    wsUrl: `ws://127.0.0.1:${address.port}/ws`,
    sms,
    pushes,
    clock,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
