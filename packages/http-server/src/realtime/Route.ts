import type { IncomingMessage } from "node:http"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { MAX_FRAME_BYTES } from "@talab/contract"
import { RateLimiter } from "@talab/core"
import * as Effect from "effect/Effect"
import { type WebSocket, WebSocketServer } from "ws"
import { AppConfig } from "../config/AppConfig.js"
import { clientNetwork } from "../http/ClientAddress.js"
import { recordRateLimit } from "../http/RateLimitHeaders.js"
import { errorEnvelopeResponse } from "../server/RequestPipeline.js"
import { recordWebSocketHandshake } from "../telemetry/Metrics.js"
import { Gateway } from "./Gateway.js"

const normalizeOrigin = (origin: string) => origin.trim().replace(/\/+$/, "").toLowerCase()

/** Requests without an Origin (apps, servers) pass; a browser's must be one of CORS_ORIGINS, unless that is `*`. */
const originAllowed = (origin: string | undefined, allowed: ReadonlyArray<string>) =>
  origin === undefined || allowed.includes("*") || allowed.map(normalizeOrigin).includes(normalizeOrigin(origin))

/*
 * The server's own `ws` server (not the one @effect/platform-node keeps for `HttpServerRequest.upgrade`),
 * because the protocol needs what that one does not give: a 16 KiB frame limit enforced while reading
 * (`maxPayload`, closing with 1009), ping/pong for heartbeats and `bufferedAmount` for slow readers.
 * The platform still owns the HTTP upgrade event and routes it here; this only completes the handshake.
 * A compliant client sends nothing before the 101 answer, so the upgrade's first packet is empty.
 */
const EMPTY_HEAD = Buffer.alloc(0)

/*
 * Without a listener, a protocol error (e.g. a frame over the limit) would be thrown; `ws` closes the socket
 * itself. Defined out here: a function made inside `upgrade` would keep its scope (the handshake's `resume`,
 * and through it the request's fiber) alive as long as the socket.
 */
const ignoreError = () => {}

/**
 * Completes the handshake and hands the socket to `serve` in the same callback, so nothing (a frame, the request's
 * fiber being interrupted) can come between; false when it failed (the `ws` server has then answered and closed).
 */
const upgrade = (server: WebSocketServer, incoming: IncomingMessage, serve: (ws: WebSocket) => void) =>
  Effect.async<boolean>((resume) => {
    const socket = incoming.socket
    const failed = () => resume(Effect.succeed(false))
    socket.once("close", failed)
    server.handleUpgrade(incoming, socket, EMPTY_HEAD, (ws) => {
      socket.off("close", failed)
      ws.on("error", ignoreError)
      serve(ws)
      resume(Effect.succeed(true))
    })
    return Effect.sync(() => socket.off("close", failed))
  })

/*
 * `Upgrade: websocket` with `Connection: upgrade` (RFC 6455). Node hands a request over as an upgrade only
 * with both; with the first alone it keeps reading HTTP from the socket, and its parser would cut a WebSocket
 * there at the first frame.
 */
const asksForWebSocket = (headers: HttpServerRequest.HttpServerRequest["headers"]) =>
  headers.upgrade?.toLowerCase() === "websocket" &&
  (headers.connection ?? "").split(",").some((token) => token.trim().toLowerCase() === "upgrade")

/*
 * Once the handler returns, the platform answers the request on its socket, which after the handshake is the
 * WebSocket's. Its answer (a Node response it makes on first use, with the socket assigned) is taken off the
 * socket and ended before the handshake: the platform skips an ended answer, and one without a socket is
 * written nowhere. So the handler returns as soon as the gateway has the socket, and the request (its fiber,
 * its context, the middleware's state) is not kept alive as long as the socket is: an idle socket must cost little.
 */
const silencePlatformAnswer = (request: HttpServerRequest.HttpServerRequest) => {
  const response = NodeHttpServerRequest.toServerResponse(request)
  if (response.socket !== null) response.detachSocket(response.socket)
  response.end()
}

/** `GET /ws`: the WebSocket, on the API's own port. */
export const WebSocketRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const config = yield* AppConfig
    const limiter = yield* RateLimiter
    /*
     * Upgrades are counted per client IP before anything is accepted: with the 10 s auth deadline this
     * bounds the unauthenticated sockets one address can hold, on every instance sharing the limiter.
     */
    const withinHandshakeBudget = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.flatMap(
        limiter.consume({
          key: `ws-handshake-ip:${clientNetwork(request, config.trustProxy)}`,
          limit: config.rateLimits.wsHandshakesPerMinute,
          windowMs: 60_000
        }),
        (decision) => Effect.as(recordRateLimit(decision), decision.allowed)
      )
    const server = yield* Effect.acquireRelease(
      Effect.sync(() => new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, clientTracking: false })),
      (server) => Effect.sync(() => server.close())
    )
    yield* router.get(
      "/ws",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!asksForWebSocket(request.headers)) {
          recordWebSocketHandshake("upgrade_required")
          return HttpServerResponse.setHeader(
            yield* errorEnvelopeResponse("UPGRADE_REQUIRED", 426),
            "upgrade",
            "websocket"
          )
        }
        if (!(yield* withinHandshakeBudget(request))) {
          recordWebSocketHandshake("rate_limited")
          return yield* errorEnvelopeResponse("RATE_LIMITED", 429)
        }
        if (!originAllowed(request.headers.origin, config.corsOrigins)) {
          recordWebSocketHandshake("origin_not_allowed")
          return yield* errorEnvelopeResponse("FORBIDDEN", 403)
        }
        silencePlatformAnswer(request)
        const acceptLanguage = request.headers["accept-language"]
        const upgraded = yield* upgrade(server, NodeHttpServerRequest.toIncomingMessage(request), (ws) =>
          gateway.serve(ws, acceptLanguage)
        )
        recordWebSocketHandshake(upgraded ? undefined : "handshake_failed")
        return HttpServerResponse.empty({ status: upgraded ? 101 : 400 })
      })
    )
  })
)
