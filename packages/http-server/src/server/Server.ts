import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Api } from "@talab/contract"
import { Ids } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SellerAlertsLive } from "../alerts/Http.js"
import { AlertMatcher } from "../alerts/Matcher.js"
import { AuthLive } from "../auth/Http.js"
import { ServerKeys } from "../auth/Secrets.js"
import { AuthService } from "../auth/Service.js"
import { SessionCache } from "../auth/SessionCache.js"
import { Tokens } from "../auth/Tokens.js"
import { ChatLive } from "../chat/Http.js"
import { AppConfig } from "../config/AppConfig.js"
import { DatabaseLayer, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { SqlRepositoriesLayer } from "../db/Repositories.js"
import { DealsLive } from "../deals/Http.js"
import { AdminOnlyLive } from "../http/AdminOnly.js"
import { ApiRateLimitLive } from "../http/ApiRateLimit.js"
import { AuthenticationLive } from "../http/Authentication.js"
import { BodyCheckLive } from "../http/BodyCheck.js"
import { IdempotencyLive } from "../idempotency/Middleware.js"
import { PushDispatcher } from "../notifications/Dispatcher.js"
import { NotificationWakeup } from "../notifications/Wakeup.js"
import { OffersLive } from "../offers/Http.js"
import { ControlChannelLive } from "../ops/Control.js"
import { RetentionJobLive } from "../ops/Retention.js"
import { RatingsLive } from "../ratings/Http.js"
import { RealtimeLive } from "../realtime/Live.js"
import { ReportsLive } from "../reports/Http.js"
import { ExpiryJob } from "../requests/Expiry.js"
import { RequestsLive } from "../requests/Http.js"
import { SellerProfilesLive } from "../sellers/Http.js"
import { InstrumentedPorts } from "../telemetry/Instrumented.js"
import { MetricsLive } from "../telemetry/MetricsEndpoint.js"
import { isUntraced, requestMetrics } from "../telemetry/RequestMetrics.js"
import { UsersLive } from "../users/Http.js"
import { fileStoreLayer, pushLayer, rateLimiterLayer, smsLayer } from "./Adapters.js"
import { AuthRateLimitLive } from "./AuthRateLimit.js"
import { CanonicalPathLive } from "./CanonicalPath.js"
import { corsFor } from "./Cors.js"
import { DecodeFailureLive } from "./DecodeFailure.js"
import { DependencyOutageLive } from "./DependencyOutage.js"
import { withLogging } from "./Logging.js"
import { NodeServer, NodeServerLayer } from "./NodeServer.js"
import { ReferenceRoutes } from "./Reference.js"
import { requestPipeline } from "./RequestPipeline.js"
import { ExtraRoutes } from "./Routes.js"
import { describeStartFailure } from "./StartFailure.js"

/*
 * The one place the server is composed, read top to bottom: the REST API, the HTTP app around it, the
 * application (the app and its background jobs over the shared infrastructure), then the production server on
 * the database, adapters and Node server its settings name. The testkit runs `AppLive` on its own.
 * Each layer appears once: a feature's layer provides its own services (its folder's Http.ts), what several
 * features share is provided once, below all of them, in `AppLive`.
 */

/** Every feature's REST groups (and the chat's `/ws`), each with its own application services. */
const Features = Layer.mergeAll(
  AuthLive,
  UsersLive,
  SellerProfilesLive,
  SellerAlertsLive,
  RequestsLive,
  OffersLive,
  DealsLive,
  RatingsLive,
  ReportsLive,
  ChatLive
)

/** The implementations of the middlewares the contract's groups declare. */
const Middlewares = Layer.mergeAll(AuthenticationLive, ApiRateLimitLive, AdminOnlyLive, BodyCheckLive)

/** The REST API: the contract with its handlers and middlewares. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(Features), Layer.provide(Middlewares))

/**
 * The whole HTTP app: REST, `/ws`, health, OpenAPI, docs, CORS, served on whatever HttpServer is provided.
 * Requires the configuration, the database and the adapters of every port.
 */
export const HttpAppLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    const tracing = config.telemetry.otlpEndpoint !== undefined
    const counting = tracing || config.telemetry.metricsPort !== undefined
    const countRequests = requestMetrics({ tracing })
    const pipeline = requestPipeline({ hsts: config.hsts })
    return HttpApiBuilder.serve(counting ? (app) => pipeline(countRequests(app)) : pipeline).pipe(
      Layer.provide(ExtraRoutes),
      Layer.provide(ReferenceRoutes),
      Layer.provide(corsFor(config.corsOrigins)),
      // Built before CORS, so inside it; built after the auth limit, so outside it: a 404 for another
      // spelling of a route comes before any limit could be counted (or skipped).
      Layer.provide(CanonicalPathLive),
      // Built before CORS, so inside it: a browser can read the 429 and the 503.
      Layer.provide(AuthRateLimitLive),
      Layer.provide(DependencyOutageLive),
      // Outside the idempotency middleware, which so sees a decode failure as a failure and keeps no answer.
      Layer.provide(DecodeFailureLive),
      // Inside the auth limit (an /auth/* call is counted per IP first) and inside the outage middleware (its
      // own database calls answer 503 when the database is unreachable).
      Layer.provide(IdempotencyLive),
      Layer.provide(ApiLive),
      // Without an exporter the framework's span per request (URL parse, header redaction, attributes) would go
      // nowhere: ~50 µs of every request. With one, every request but health probes and sockets gets its span.
      HttpMiddleware.withTracerDisabledWhen(tracing ? isUntraced : () => true),
      // One spelling per route: no case folding, no merged or trailing slashes (with the canonical-path
      // check of the request pipeline, which also refuses `%` escapes and dot segments).
      Layer.provide(
        HttpRouter.setRouterConfig({ caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false })
      )
    )
  })
)

/** The server's keys and the token codec every session check (REST, `/ws`, idempotency) uses. */
const ServerSecrets = Tokens.layer.pipe(Layer.provideMerge(ServerKeys.layer))

/**
 * The application (HTTP app, push dispatcher, alert matcher, expiry job, metrics) on a database and adapters
 * supplied by the caller: what production and the testkit share. Requires AppConfig, SqlClient, the port
 * adapters and an HttpServer. It also gives the auth handlers' own AuthService (a layer is built once), which
 * the testkit signs its fixtures' users in with.
 */
export const AppLive = Layer.mergeAll(
  HttpAppLive,
  PushDispatcher.layer(),
  AlertMatcher.layer(),
  ExpiryJob.layer,
  MetricsLive,
  AuthService.Default
).pipe(
  // Counted and traced ports when telemetry is on (METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT); else the adapters.
  Layer.provide(InstrumentedPorts),
  Layer.provide(SqlRepositoriesLayer),
  // The WebSocket hub, which also closes the sockets of ended sessions (also those `talab sessions revoke` ends).
  Layer.provideMerge(RealtimeLive),
  // One session cache for REST's and the socket's checks, kept current by the hub's events.
  Layer.provideMerge(SessionCache.layer),
  // One wakeup shared by the outbox that queues notifications and the dispatcher that delivers them.
  Layer.provide(NotificationWakeup.layer),
  Layer.provide(ServerSecrets)
)

/** The Node HTTP server for HOST:PORT; it listens once `Listening` is built. */
const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    NodeServerLayer({ port: config.port, host: config.host, shutdownTimeoutMs: config.shutdownTimeoutMs })
  )
)

/** Opens the port; at shutdown, drains it. */
const Listening = Layer.scopedDiscard(Effect.flatMap(NodeServer, (server) => server.listen))

/** The production adapters of every port but the database, chosen by the configuration. */
const AdaptersFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.mergeAll(smsLayer(config), pushLayer(config), rateLimiterLayer(config), fileStoreLayer(config), Ids.Random)
  )
)

/** The database DATABASE_URL names, migrated unless MIGRATE_ON_START=false (migrations then run as `talab migrate`). */
const DatabaseFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Effect.map(databaseOptionsFromUrl(config.databaseUrl, config.dataDir), (options) =>
      config.migrateOnStart ? MigratedDatabaseLayer(options) : DatabaseLayer(options)
    )
  )
)

/**
 * The production server, built from its settings (AppConfig): the application, the retention job and the
 * operator's control channel. The port opens only once the app is built (`Layer.provide` builds AppLive
 * before Listening), so every connection is answered; closing runs the other way: drain the connections,
 * then stop the app, then the server and the database.
 */
export const ProductionServer = Listening.pipe(
  Layer.provide(Layer.mergeAll(RetentionJobLive, ControlChannelLive).pipe(Layer.provideMerge(AppLive))),
  Layer.provide(NodeServerLive),
  Layer.provide(AdaptersFromConfig),
  Layer.provide(DatabaseFromConfig)
)

/**
 * The production process: the settings read once from the environment, `telemetry` (the OpenTelemetry layer,
 * which the app keeps out of this package) installed before the server is built so the server's fibers carry
 * its tracer, the server run until it is stopped with the logging the settings ask for. A start failure is one
 * line on stderr and exit code 1.
 */
export const runProductionServer = <E>(telemetry: Layer.Layer<never, E, AppConfig>) =>
  Effect.gen(function* () {
    const settings = yield* AppConfig.fromEnvironment
    const server = ProductionServer.pipe(
      Layer.provide(telemetry),
      Layer.provideMerge(Layer.succeed(AppConfig, settings))
    )
    return yield* Layer.launch(server).pipe(withLogging(settings))
  }).pipe(
    Effect.catchAll((error) =>
      Effect.sync(() => {
        process.stderr.write(`${describeStartFailure(error)}\n`)
        process.exitCode = 1
      })
    )
  )
