import { isAuthPath, pathOf } from "../http/RequestPath.js"
import { networkRateLimit } from "./NetworkRateLimit.js"

/**
 * The per-network limit of /auth/* (decisions.md section 8), counted before the request is routed, so a 429
 * outranks every other answer. It sits inside the CORS middleware so a browser can read the 429.
 * Only canonical paths get here (`CanonicalPathLive`, outside it, answers 404 to any other spelling) and
 * the router is case-sensitive and strict about slashes, so this prefix is exactly the auth group's routes.
 */
export const AuthRateLimitLive = networkRateLimit({
  name: "auth-ip",
  counts: (request) => request.method !== "OPTIONS" && isAuthPath(pathOf(request.url)),
  perMinute: (config) => config.rateLimits.authPerMinute
})
