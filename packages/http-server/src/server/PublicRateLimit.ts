import { isAdminConsolePath, pathOf } from "../http/RequestPath.js"
import { networkRateLimit } from "./NetworkRateLimit.js"
import { DOCS_PATH } from "./SecurityHeaders.js"

/** The reads anyone may make without a token, each answered from what the server holds. */
const PUBLIC_DOCUMENTS = new Set(["/api/v1/openapi.json", "/api/v1/asyncapi.json", DOCS_PATH, `${DOCS_PATH}/scalar.js`])
const PUBLIC_PROFILE = /^\/api\/v1\/seller-profiles\/[^/]+$/

const isPublicRead = (method: string, path: string) =>
  (method === "GET" || method === "HEAD") &&
  (PUBLIC_DOCUMENTS.has(path) || PUBLIC_PROFILE.test(path) || isAdminConsolePath(path))

/**
 * The per-network limit of the public reads (a seller's profile, the API documents, the reference page and its
 * script, the admin console's page and files): without a token nothing else bounds them, and the documents are the largest answers the server has.
 * Counted before the route runs, like the auth limit; health, `/auth/*` (counted there) and avatars are not here.
 */
export const PublicRateLimitLive = networkRateLimit({
  name: "public-ip",
  counts: (request) => isPublicRead(request.method, pathOf(request.url)),
  perMinute: (config) => config.publicRoutesPerMinute
})
