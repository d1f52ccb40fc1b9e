import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AlertMatcher } from "../alerts/Matcher.js"
import { SessionCache } from "../auth/SessionCache.js"
import { AppConfig } from "../config/AppConfig.js"
import { DatabaseLayer, type DatabaseOptions, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { SqlRepositoriesLayer } from "../db/Repositories.js"
import { PushDispatcher } from "../notifications/Dispatcher.js"
import { NotificationWakeup } from "../notifications/Wakeup.js"
import { ControlChannelLive } from "../ops/Control.js"
import { RetentionJobLive } from "../ops/Retention.js"
import { RealtimeLive } from "../realtime/Live.js"
import { ExpiryJob } from "../requests/Expiry.js"
import { InstrumentedPorts } from "../telemetry/Instrumented.js"
import { MetricsLive } from "../telemetry/MetricsEndpoint.js"
import { AdaptersFromConfig } from "./Adapters.js"
import { NodeServer, NodeServerLayer } from "./NodeServer.js"
import { HttpAppLive } from "./Server.js"

/**
 * The application (HTTP app and push dispatcher) on a database and adapters supplied by the caller: what
 * production and the testkit share. Requires AppConfig, SqlClient, the port adapters and an HttpServer.
 */
export const AppLive = Layer.mergeAll(
  HttpAppLive,
  PushDispatcher.layer(),
  AlertMatcher.layer(),
  ExpiryJob.layer,
  MetricsLive
).pipe(
  // Counted and traced ports when telemetry is on (METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT); else the adapters.
  Layer.provide(InstrumentedPorts),
  Layer.provide(SqlRepositoriesLayer),
  // The WebSocket hub, which also closes the sockets of ended sessions (also those `talab sessions revoke` ends).
  Layer.provideMerge(RealtimeLive),
  // One session cache for REST's and the socket's checks, kept current by the hub's events.
  Layer.provideMerge(SessionCache.layer),
  // One wakeup shared by the outbox that queues notifications and the dispatcher that delivers them.
  Layer.provide(NotificationWakeup.layer)
)

/** The Node HTTP server for HOST:PORT; it listens once `Listening` is built. */
export const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    NodeServerLayer({ port: config.port, host: config.host, shutdownTimeoutMs: config.shutdownTimeoutMs })
  )
)

/** Opens the port; at shutdown, drains it. */
const Listening = Layer.scopedDiscard(Effect.flatMap(NodeServer, (server) => server.listen))

/** The database DATABASE_URL names, migrated unless MIGRATE_ON_START=false (migrations then run as `talab migrate`). */
export const DatabaseFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Effect.map(databaseOptionsFromUrl(config.databaseUrl, config.dataDir), (options: DatabaseOptions) =>
      config.migrateOnStart ? MigratedDatabaseLayer(options) : DatabaseLayer(options)
    )
  )
)

/**
 * The production server, built from its settings (AppConfig). The port opens only
 * once the app is built (`Layer.provide` builds AppLive before Listening), so every connection is answered;
 * closing runs the other way: drain the connections, then stop the app, then the server and the database.
 */
export const ProductionServer = Listening.pipe(
  Layer.provide(Layer.mergeAll(RetentionJobLive, ControlChannelLive).pipe(Layer.provideMerge(AppLive))),
  Layer.provide(NodeServerLive),
  Layer.provide(AdaptersFromConfig),
  Layer.provide(DatabaseFromConfig)
)

/** `ProductionServer` with its settings read from the environment. */
export const ProductionServerLive = ProductionServer.pipe(Layer.provideMerge(AppConfig.fromEnv))
