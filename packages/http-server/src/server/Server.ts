import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Api } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AuthHttp } from "../auth/Http.js"
import { OtpCodes } from "../auth/OtpCodes.js"
import { SessionQueries } from "../auth/Queries.js"
import { ServerKeys } from "../auth/Secrets.js"
import { AuthService } from "../auth/Service.js"
import { Tokens } from "../auth/Tokens.js"
import { ChatHttp } from "../chat/Http.js"
import { ChatService } from "../chat/Service.js"
import { AppConfig } from "../config/AppConfig.js"
import { AdminAuthenticationLive, AuthenticationLive } from "../http/Authentication.js"
import { BodyCheckLive } from "../http/BodyCheck.js"
import { IdempotencyLive } from "../idempotency/Middleware.js"
import { Gateway } from "../realtime/Gateway.js"
import { WebSocketRoute } from "../realtime/Route.js"
import { isUntraced, requestMetrics } from "../telemetry/RequestMetrics.js"
import { UsersHttp } from "../users/Http.js"
import { UsersService } from "../users/Service.js"
import { AuthRateLimitLive } from "./AuthRateLimit.js"
import { CanonicalPathLive } from "./CanonicalPath.js"
import { DecodeFailureLive } from "./DecodeFailure.js"
import { DependencyOutageLive } from "./DependencyOutage.js"
import { MarketplaceGroups, MarketplaceServices } from "./Marketplace.js"
import { ReferenceRoutes } from "./Reference.js"
import { requestPipeline } from "./RequestPipeline.js"
import { ExtraRoutes } from "./Routes.js"

const Security = Layer.mergeAll(Tokens.layer, OtpCodes.layer).pipe(Layer.provideMerge(ServerKeys.layer))

const Services = Layer.mergeAll(
  AuthService.Default,
  SessionQueries.Default,
  UsersService.Default,
  MarketplaceServices,
  ChatService.Default
)

const Groups = Layer.mergeAll(AuthHttp, UsersHttp, MarketplaceGroups, ChatHttp)

/** The REST API with its handlers and their application services. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(Groups),
  Layer.provide(Layer.mergeAll(AuthenticationLive, AdminAuthenticationLive)),
  Layer.provide(BodyCheckLive),
  Layer.provide(Services),
  Layer.provide(Security)
)

/** `/ws` on the API's port, over the same application services as REST. */
const WebSocketLive = WebSocketRoute.pipe(
  Layer.provide(Gateway.Default),
  Layer.provide(Services),
  Layer.provide(Security)
)

/**
 * CORS for browsers: the allowed origins of CORS_ORIGINS (`*` allows any). A predicate, because with a
 * list of one the framework would name that origin in every response, whoever asked.
 */
const corsFor = (origins: ReadonlyArray<string>) =>
  HttpApiBuilder.middlewareCors({
    ...(origins.includes("*") ? {} : { allowedOrigins: (origin: string) => origins.includes(origin) }),
    allowedHeaders: ["authorization", "content-type", "accept-language", "x-request-id", "idempotency-key"],
    exposedHeaders: [
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "retry-after",
      "x-request-id",
      "idempotent-replayed"
    ],
    maxAge: 600
  })

/**
 * The whole HTTP app: REST, health, OpenAPI, docs, CORS, served on whatever HttpServer is provided.
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
      Layer.provide(WebSocketLive),
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
      Layer.provide(IdempotencyLive.pipe(Layer.provide(Security))),
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
