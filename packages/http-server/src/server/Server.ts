import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Api } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SellerAlertsLive } from "../alerts/Http.js"
import { AlertMatcher } from "../alerts/Matcher.js"
import { AuditLive } from "../audit/Http.js"
import { AuthLive } from "../auth/Http.js"
import { ServerKeys } from "../auth/Secrets.js"
import { AuthService } from "../auth/Service.js"
import { SessionCache } from "../auth/SessionCache.js"
import { Tokens } from "../auth/Tokens.js"
import { ChatLive } from "../chat/Http.js"
import { AppConfig, type AppSettings } from "../config/AppConfig.js"
import { SqlRepositoriesLayer } from "../db/Repositories.js"
import { DealsLive } from "../deals/Http.js"
import { AdminOnlyLive } from "../http/AdminOnly.js"
import { ApiRateLimitLive } from "../http/ApiRateLimit.js"
import { AuthenticationLive } from "../http/Authentication.js"
import { BodyCheckLive } from "../http/BodyCheck.js"
import { IdempotencyLive } from "../idempotency/Middleware.js"
import { ImagesLive } from "../images/Http.js"
import { ImageFileRoutes } from "../images/Routes.js"
import { ImagesShared } from "../images/Shared.js"
import { ImageSweepJobLive } from "../images/Sweep.js"
import { PushDispatcher } from "../notifications/Dispatcher.js"
import { NotificationWakeup } from "../notifications/Wakeup.js"
import { OffersLive } from "../offers/Http.js"
import { ControlChannelLive } from "../ops/Control.js"
import { RetentionJobLive } from "../ops/Retention.js"
import { RatingsLive } from "../ratings/Http.js"
import { ReadCache } from "../readcache/ReadCache.js"
import { RealtimeLive } from "../realtime/Live.js"
import { ReportsLive } from "../reports/Http.js"
import { ExpiryJob } from "../requests/Expiry.js"
import { RequestSettingsLive, RequestsLive } from "../requests/Http.js"
import { SellerProfilesLive } from "../sellers/Http.js"
import { InstrumentedPorts } from "../telemetry/Instrumented.js"
import { MetricsLive } from "../telemetry/MetricsEndpoint.js"
import { requestMetrics } from "../telemetry/RequestMetrics.js"
import { requestSpan } from "../telemetry/RequestSpan.js"
import { AdminUsersLive } from "../users/AdminHttp.js"
import { PublicUrlLive } from "../users/AvatarUrl.js"
import { AccountErasureLive } from "../users/Erasure.js"
import { UsersLive } from "../users/Http.js"
import { DatabaseFromConfig, PortAdaptersFromConfig } from "./Adapters.js"
import { AdminConsoleRoutes } from "./AdminConsole.js"
import { AuthRateLimitLive } from "./AuthRateLimit.js"
import { CanonicalPathLive } from "./CanonicalPath.js"
import { corsFor } from "./Cors.js"
import { DecodeFailureLive } from "./DecodeFailure.js"
import { DeleteBodyLive } from "./DeleteBody.js"
import { DependencyOutageLive } from "./DependencyOutage.js"
import { withLogging } from "./Logging.js"
import { nestOutermostFirst } from "./MiddlewareOrder.js"
import { Listening, NodeServerFromConfig } from "./NodeServer.js"
import { PublicRateLimitLive } from "./PublicRateLimit.js"
import { ReadCacheLive } from "./ReadCacheMiddleware.js"
import { ReferenceRoutes } from "./Reference.js"
import { requestPipeline } from "./RequestPipeline.js"
import { ExtraRoutes } from "./Routes.js"
import { SchemaGateLive } from "./SchemaGate.js"
import { describeStartFailure } from "./StartFailure.js"

/*
 * The one place the server is composed, read top to bottom: the REST API, the HTTP app around it (a request's
 * path through the server, outermost first), the application (the app and its background jobs over the shared
 * infrastructure), then the production server on the database, adapters and Node server its settings name.
 * The testkit runs `AppLive` on its own. Each layer appears once: a feature's layer provides its own services
 * (its folder's Http.ts); what several features share is provided once, below all of them, in `AppLive`.
 */

/** Every feature's REST groups (and the chat's `/ws`), each with its own application services. */
const FeatureGroups = Layer.mergeAll(
  AuthLive,
  UsersLive,
  SellerProfilesLive,
  SellerAlertsLive,
  RequestsLive,
  OffersLive,
  DealsLive,
  RatingsLive,
  ReportsLive,
  AdminUsersLive,
  AuditLive,
  ChatLive,
  ImagesLive
)

/**
 * The implementations of the middlewares the contract declares on its groups and endpoints; the contract, not
 * this list, says which endpoint runs which, in which order.
 */
const ContractMiddlewares = Layer.mergeAll(AuthenticationLive, ApiRateLimitLive, AdminOnlyLive, BodyCheckLive)

/** The REST API: the contract with its handlers and middlewares. */
const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(FeatureGroups), Layer.provide(ContractMiddlewares))

/**
 * Around everything the app answers, the framework's own answers (unknown route, malformed JSON) included:
 * the request pipeline (request id, body limits, the envelope and headers of every response, the log line),
 * then, when telemetry is on, the request count, inside it so it counts the status the client gets; around them
 * all, when tracing is on, the request's span (redacted as the log is: `RequestSpan.ts`).
 */
const outermostOf = (config: AppSettings) => {
  const tracing = config.telemetry.otlpEndpoint !== undefined
  const counting = tracing || config.telemetry.metricsPort !== undefined
  const pipeline = requestPipeline({ hsts: config.hsts })
  const countRequests = requestMetrics({ tracing })
  const counted = counting ? (app: HttpApp.Default) => pipeline(countRequests(app)) : pipeline
  return tracing ? (app: HttpApp.Default) => requestSpan(counted(app)) : counted
}

/** The middlewares around the API and the other routes, outermost first: each wraps all those after it. */
const edgeMiddlewaresOf = (config: AppSettings) =>
  [
    // Outside every answer below, so a browser can read them all (the 404, the 429, the 503).
    corsFor(config.corsOrigins),
    // Another spelling of a route is 404 before any limit below is counted, or skipped.
    CanonicalPathLive,
    // A schema behind the server's migrations answers 503 until `talab migrate` has run, not 500: before
    // the auth limit, whose counters may be tables of that schema.
    SchemaGateLive,
    // /auth/* is counted per IP before anything below answers, so its 429 outranks every other answer.
    AuthRateLimitLive,
    // So are the public reads (a seller's profile, the API documents), per network too.
    PublicRateLimitLive,
    // A database outage below, the idempotency store's own calls included, answers 503, not 500.
    DependencyOutageLive,
    // A DELETE's body is JSON or nothing: any other type is 415 before anything parses it.
    DeleteBodyLive,
    // Outside idempotency, which so sees a decode failure as a failure and keeps no answer for it.
    DecodeFailureLive,
    // Keeps, or replays, the endpoint's own answer to a POST with an Idempotency-Key.
    IdempotencyLive,
    // Innermost: the public reads answered from memory, after every limit above and before the router.
    ReadCacheLive
  ] as const

/** One spelling per route: no case folding, no merged or trailing slashes (with `CanonicalPathLive`). */
const StrictRouter = HttpRouter.setRouterConfig({
  caseSensitive: true,
  ignoreTrailingSlash: false,
  ignoreDuplicateSlashes: false
})

/**
 * The whole HTTP app: REST, `/ws`, health, OpenAPI, docs, the admin console, served on whatever HttpServer is provided, inside
 * the outermost middleware and the edge middlewares. Requires the configuration, the database and the
 * adapters of every port.
 */
const HttpAppLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    HttpApiBuilder.serve(outermostOf(config)).pipe(
      Layer.provide(Layer.mergeAll(ExtraRoutes, ReferenceRoutes, AdminConsoleRoutes, ImageFileRoutes)),
      nestOutermostFirst(edgeMiddlewaresOf(config)),
      Layer.provide(ApiLive),
      // The framework's span per request is never made: it keeps the query and every header. Ours (outermostOf)
      // is made with an exporter only, for every request but health probes and sockets.
      HttpMiddleware.withTracerDisabledWhen(() => true),
      Layer.provide(StrictRouter)
    )
  )
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
  ImageSweepJobLive,
  MetricsLive,
  AuthService.Default
).pipe(
  // Deleting accounts, for the users' own calls and the operator's `talab users delete` (the control channel).
  Layer.provideMerge(AccountErasureLive.pipe(Layer.provide(RequestSettingsLive))),
  // Photos: the views' signed URLs and attached images, the file route, the sweep, the one decoding gate.
  Layer.provideMerge(ImagesShared),
  // Counted and traced ports when telemetry is on (METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT); else the adapters.
  Layer.provide(InstrumentedPorts),
  Layer.provide(SqlRepositoriesLayer),
  // The WebSocket hub, which also closes the sockets of ended sessions (also those `talab sessions revoke` ends).
  Layer.provideMerge(RealtimeLive),
  // One session cache for REST's and the socket's checks, kept current by the hub's events.
  Layer.provideMerge(SessionCache.layer),
  // One read cache, filled by the edge middleware, dropped from by the writes' announcements (through the hub).
  Layer.provideMerge(ReadCache.layer),
  // One wakeup shared by the outbox that queues notifications and the dispatcher that delivers them.
  Layer.provide(NotificationWakeup.layer),
  Layer.provide(ServerSecrets),
  // Avatars are stored as paths and shown on PUBLIC_URL, by the repositories and the read models above.
  Layer.provide(PublicUrlLive)
)

/**
 * The production server, built from its settings (AppConfig): the application, the retention job and the
 * operator's control channel. The port opens only once the app is built (`Layer.provide` builds AppLive
 * before Listening), so every connection is answered; closing runs the other way: drain the connections,
 * then stop the app, then the server and the database.
 */
const ProductionServer = Listening.pipe(
  Layer.provide(Layer.mergeAll(RetentionJobLive, ControlChannelLive).pipe(Layer.provideMerge(AppLive))),
  Layer.provide(NodeServerFromConfig),
  Layer.provide(PortAdaptersFromConfig),
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
