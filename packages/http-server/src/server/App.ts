import { createServer } from "node:http"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { DatabaseLayer, type DatabaseOptions, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { PushDispatcher } from "../notifications/Dispatcher.js"
import { NotificationWakeup } from "../notifications/Wakeup.js"
import { ControlChannelLive } from "../ops/Control.js"
import { RetentionJobLive } from "../ops/Retention.js"
import { RealtimeLive } from "../realtime/Live.js"
import { SqlRepositoriesLayer } from "../repos/index.js"
import { InstrumentedPorts } from "../telemetry/Instrumented.js"
import { MetricsLive } from "../telemetry/MetricsEndpoint.js"
import { AdaptersFromConfig } from "./Adapters.js"
import { HttpAppLive } from "./Server.js"

/**
 * The application (HTTP app and push dispatcher) on a database and adapters supplied by the caller: what
 * production and the testkit share. Requires AppConfig, SqlClient, the port adapters and an HttpServer.
 */
export const AppLive = Layer.mergeAll(HttpAppLive, PushDispatcher.layer(), MetricsLive).pipe(
  // Counted and traced ports when telemetry is on (METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT); else the adapters.
  Layer.provide(InstrumentedPorts),
  Layer.provide(SqlRepositoriesLayer),
  // The WebSocket hub, which also closes the sockets of ended sessions.
  Layer.provide(RealtimeLive),
  // One wakeup shared by the outbox that queues notifications and the dispatcher that delivers them.
  Layer.provide(NotificationWakeup.layer)
)

/** The Node HTTP server listening on HOST:PORT. */
export const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

/** The database DATABASE_URL names, migrated unless MIGRATE_ON_START=false (migrations then run as `talab migrate`). */
export const DatabaseFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Effect.map(databaseOptionsFromUrl(config.databaseUrl, config.dataDir), (options: DatabaseOptions) =>
      config.migrateOnStart ? MigratedDatabaseLayer(options) : DatabaseLayer(options)
    )
  )
)

/** The production server: configuration from the environment, everything else from it. */
export const ProductionServerLive = Layer.mergeAll(AppLive, RetentionJobLive, ControlChannelLive).pipe(
  HttpServer.withLogAddress,
  Layer.provide(NodeServerLive),
  Layer.provide(AdaptersFromConfig),
  Layer.provide(DatabaseFromConfig),
  Layer.provideMerge(AppConfig.fromEnv)
)
