import { EventEmitter } from "node:events"
import * as Http from "node:http"
import type { Socket } from "node:net"
import * as Net from "node:net"
import type { Duplex } from "node:stream"
import * as HttpServerError from "@effect/platform/HttpServerError"
import { NodeHttpServer } from "@effect/platform-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { AppConfig } from "../config/AppConfig.js"
import { makeLifecycle, ServerLifecycle } from "./Lifecycle.js"

/** Node's HTTP timeouts, chosen rather than inherited (docs/DECISIONS.md, "Server timeouts"). */
const SERVER_TIMEOUTS = {
  /** A client has this long to send a request's headers (slowloris). */
  headersTimeoutMs: 20_000,
  /** ... and this long for the whole request, body included: a 5 MiB avatar over a slow mobile link. */
  requestTimeoutMs: 120_000,
  /** An idle keep-alive connection is kept this long: longer than a load balancer's usual 60 s, so it closes first. */
  keepAliveTimeoutMs: 65_000,
  /** How often the two request timeouts are checked (Node's default, 30 s, lets them run 30 s late). */
  checkIntervalMs: 1_000,
  /**
   * After SIGTERM a connection is closed once it has served no request for this long: a request a client sends
   * on a kept-alive connection meanwhile is answered (with `Connection: close`) instead of meeting a closed
   * socket, which for a POST no client or proxy may retry. Closing an idle connection always races a request
   * sent at that moment (HTTP/1.1 has no way to warn); a connection in use is never idle this long.
   */
  drainIdleGraceMs: 500
} as const

export interface NodeServerOptions {
  readonly port: number
  readonly host: string
  readonly shutdownTimeoutMs: number
}

/** The server's socket, opened by `listen` once the app is built; closing the scope drains it. */
export class NodeServer extends Context.Tag("Server/NodeServer")<
  NodeServer,
  { readonly listen: Effect.Effect<void, HttpServerError.ServeError, Scope.Scope> }
>() {}

/**
 * Every open connection and how many requests it is serving. Upgraded ones (WebSockets) are counted apart:
 * the app closes those itself, with 1001.
 */
class Connections {
  /** Per connection: the requests it is serving, and since when (Date.now()) it has served none. */
  private readonly http = new Map<Socket, { active: number; idleSince: number }>()
  private readonly upgraded = new Set<Duplex>()
  private emptied: Array<() => void> = []
  /** From SIGTERM on: every response says `Connection: close`, and its connection is closed after it. */
  draining = false

  add(socket: Socket) {
    this.http.set(socket, { active: 0, idleSince: Date.now() })
    socket.once("close", () => {
      this.http.delete(socket)
      this.upgraded.delete(socket)
      this.checkEmpty()
    })
  }

  requestStarted(request: Http.IncomingMessage, response: Http.ServerResponse) {
    const socket = request.socket
    const state = this.http.get(socket)
    if (state !== undefined) state.active += 1
    // Node then answers with `Connection: close` and closes the connection after the response. A response begun
    // before the drain keeps its keep-alive: a request the client pipelined behind it is still answered.
    if (this.draining) response.shouldKeepAlive = false
    response.once("close", () => {
      if (state === undefined) return
      state.active -= 1
      if (state.active === 0) state.idleSince = Date.now()
    })
  }

  upgrading(socket: Duplex) {
    this.http.delete(socket as Socket)
    this.upgraded.add(socket)
  }

  get size() {
    return this.http.size + this.upgraded.size
  }

  /**
   * Closes the connections that have served no request for `quietMs`: idle keep-alive ones and those still
   * sending their headers. A request whose headers have arrived is in flight and is let finish; a connection a
   * client is using gets its `Connection: close` with its next answer instead of meeting a closed socket.
   */
  closeQuiet(quietMs: number) {
    const now = Date.now()
    let closed = 0
    for (const [socket, state] of this.http) {
      if (state.active === 0 && now - state.idleSince >= quietMs) {
        socket.destroy()
        closed += 1
      }
    }
    return closed
  }

  closeAll() {
    const count = this.size
    for (const socket of [...this.http.keys(), ...this.upgraded]) socket.destroy()
    return count
  }

  whenEmpty = Effect.async<void>((resume) => {
    if (this.size === 0) return resume(Effect.void)
    this.emptied.push(() => resume(Effect.void))
  })

  private checkEmpty() {
    if (this.size > 0) return
    for (const resolve of this.emptied.splice(0)) resolve()
  }
}

/*
 * What @effect/platform-node's server is given to "listen" on: an emitter that takes its request and upgrade
 * handlers, so the app is built on it, while the real socket opens only once the app answers (NodeServer.listen).
 * NodeHttpServer.make calls no more of a server than listen, address, listening, close and on/off.
 */
const handlerSink = (options: NodeServerOptions) =>
  Object.assign(new EventEmitter(), {
    listening: false,
    listen: (_options: unknown, listening: () => void) => void setImmediate(listening),
    address: () => ({ address: options.host, family: "IPv4", port: options.port }),
    close: (closed?: () => void) => closed?.()
  }) as unknown as Http.Server

/** How often a drain looks for connections that have gone quiet. */
const DRAIN_SWEEP_MS = 50

/** The time the connections get of the shutdown budget; the rest is left for the pushes due and the database. */
const connectionBudgetMs = (timeoutMs: number) => Math.max(timeoutMs - 3_000, timeoutMs / 2)

/**
 * The HTTP server, with `HttpServer`, the platform services, `ServerLifecycle` and `NodeServer`. The app is
 * served on it as on `NodeHttpServer.layer`; the port opens when `NodeServer.listen` runs, and closing that
 * scope drains: readiness turns 503 and WebSockets are closed (the app listens to `ServerLifecycle`), no new
 * connection is accepted, every request that arrives on an open connection is answered with `Connection: close`,
 * idle and half-sent connections are closed after a short grace, requests in flight finish, and whatever is
 * still open when the connections' share of SHUTDOWN_TIMEOUT_MS runs out is cut.
 */
const NodeServerLayer = (options: NodeServerOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const server = Http.createServer({
        headersTimeout: SERVER_TIMEOUTS.headersTimeoutMs,
        requestTimeout: SERVER_TIMEOUTS.requestTimeoutMs,
        connectionsCheckingInterval: SERVER_TIMEOUTS.checkIntervalMs
      })
      server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeoutMs
      const connections = new Connections()
      const handlers = handlerSink(options)
      server.on("connection", (socket) => connections.add(socket))
      server.on("request", (request, response) => {
        connections.requestStarted(request, response)
        handlers.emit("request", request, response)
      })
      server.on("upgrade", (request, socket, head) => {
        connections.upgrading(socket)
        handlers.emit("upgrade", request, socket, head)
      })
      const { lifecycle, startDrain } = makeLifecycle(options.shutdownTimeoutMs)

      const drain = Effect.gen(function* () {
        const startedAt = Date.now()
        connections.draining = true
        startDrain()
        yield* Effect.logInfo("Shutting down: draining connections").pipe(
          Effect.annotateLogs({ open_connections: connections.size, timeout_ms: options.shutdownTimeoutMs })
        )
        // No new connection (a balancer sends it elsewhere: nothing was sent); open ones are still read. Node's own
        // `server.close()` would also close the idle ones at once, racing requests already on their way.
        Net.Server.prototype.close.call(server)
        const quietMs = Math.min(SERVER_TIMEOUTS.drainIdleGraceMs, connectionBudgetMs(options.shutdownTimeoutMs))
        const sweeper = setInterval(() => connections.closeQuiet(quietMs), DRAIN_SWEEP_MS)
        // Interruptible: this runs in a finalizer, where a timed-out wait would otherwise be waited for until the
        // connections it waits on end by themselves.
        const drained = yield* Effect.interruptible(connections.whenEmpty).pipe(
          Effect.timeoutTo({
            duration: connectionBudgetMs(options.shutdownTimeoutMs),
            onSuccess: () => 0,
            onTimeout: () => connections.closeAll()
          }),
          Effect.ensuring(Effect.sync(() => clearInterval(sweeper)))
        )
        yield* Effect.logInfo("Connections drained").pipe(
          Effect.annotateLogs({ duration_ms: Date.now() - startedAt, cut_at_deadline: drained })
        )
      })

      const listen = Effect.gen(function* () {
        yield* Effect.async<void, HttpServerError.ServeError>((resume) => {
          const failed = (cause: Error) => resume(Effect.fail(new HttpServerError.ServeError({ cause })))
          server.once("error", failed)
          server.listen({ port: options.port, host: options.host }, () => {
            server.off("error", failed)
            resume(Effect.void)
          })
        })
        const address = server.address()
        if (address !== null && typeof address === "object") {
          const host = address.family === "IPv6" ? `[${address.address}]` : address.address
          yield* Effect.logInfo(`Listening on http://${host}:${address.port}`)
        }
        yield* Effect.addFinalizer(() => drain)
      })

      // The app, the pushes due and the database are closed by now: whatever is left goes too.
      yield* Effect.addFinalizer(() =>
        Effect.zipRight(
          Effect.sync(() => {
            connections.closeAll()
            // Also stops Node's timer of the request timeouts.
            server.close()
          }),
          Effect.logInfo("Stopped")
        )
      )

      return Layer.mergeAll(
        NodeHttpServer.layer(() => handlers, { port: options.port, host: options.host }),
        Layer.succeed(ServerLifecycle, lifecycle),
        Layer.succeed(NodeServer, { listen })
      )
    })
  )

/** The Node HTTP server for HOST:PORT; it listens once `Listening` is built. */
export const NodeServerFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    NodeServerLayer({ port: config.port, host: config.host, shutdownTimeoutMs: config.shutdownTimeoutMs })
  )
)

/** Opens the port; at shutdown, drains it. */
export const Listening = Layer.scopedDiscard(Effect.flatMap(NodeServer, (server) => server.listen))
