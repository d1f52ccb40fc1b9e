import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { SessionEvents } from "../auth/SessionEvents.js"
import { AppConfig } from "../config/AppConfig.js"
import { type DatabaseOptions, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { SqlRepositoriesLayer } from "../repos/index.js"
import { AdaptersFromConfig } from "./Adapters.js"
import { HttpAppLive } from "./Server.js"

/**
 * The application on a database and adapters supplied by the caller: what production and the testkit
 * share. Requires AppConfig, SqlClient, the port adapters and an HttpServer.
 */
export const AppLive = HttpAppLive.pipe(Layer.provide(SqlRepositoriesLayer), Layer.provide(SessionEvents.Noop))

/** The Node HTTP server listening on HOST:PORT. */
export const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

/** The database DATABASE_URL names, migrated. */
export const DatabaseFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Effect.map(databaseOptionsFromUrl(config.databaseUrl, config.dataDir), (options: DatabaseOptions) =>
      MigratedDatabaseLayer(options)
    )
  )
)

/** The production server: configuration from the environment, everything else from it. */
export const ProductionServerLive = AppLive.pipe(
  HttpServer.withLogAddress,
  Layer.provide(NodeServerLive),
  Layer.provide(AdaptersFromConfig),
  Layer.provide(DatabaseFromConfig),
  Layer.provideMerge(AppConfig.fromEnv)
)
