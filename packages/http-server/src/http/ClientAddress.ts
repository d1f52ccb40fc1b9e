import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"
import { clientNetworkOf } from "../auth/NetworkPrefix.js"

/**
 * The client address: behind a trusted proxy, the last X-Forwarded-For hop, the one the proxy itself
 * appended (hops before it are whatever the client sent, so keying a limit on them lets anyone pick a
 * fresh budget); else the socket's address.
 */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) => {
  const lastHop = request.headers["x-forwarded-for"]?.split(",").at(-1)?.trim()
  if (trustProxy && lastHop) return lastHop
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

/**
 * The client as every per-IP rule counts it (the auth and public-route limits, WebSocket handshakes, the SMS
 * budget per network, the idempotency scope of `/auth/*`): its IPv4 address, or its IPv6 /64.
 */
export const clientNetwork = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) =>
  clientNetworkOf(clientIp(request, trustProxy))
