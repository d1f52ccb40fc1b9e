/*
 * One spelling per route. The router is made case-sensitive and strict about slashes (Server.ts), and
 * before routing every path must be canonical, else it answers 404 (RequestPipeline.ts): so the path a
 * limit or a body rule looks at is the path of the route that will answer, and no other spelling of a
 * route exists to slip past them.
 */

/**
 * The admin console's page: the one path with a trailing slash, so the page's relative addresses resolve under
 * /admin/ (server/AdminConsole.ts).
 */
export const ADMIN_CONSOLE_PATH = "/admin/"

/** The console's files. */
export const ADMIN_CONSOLE_ASSETS = "/admin/assets/"

/** The console's page or one of its files: public, static, no schema needed. */
export const isAdminConsolePath = (path: string) =>
  path === ADMIN_CONSOLE_PATH || path === "/admin" || path.startsWith(ADMIN_CONSOLE_ASSETS)

/** Segments of unreserved characters (RFC 3986) only: no percent-escapes, no empty or dot segments. */
const CANONICAL_PATH = /^(?:\/[A-Za-z0-9._~-]+)+$/

/**
 * The path of a request target if it is the canonical spelling of a path, else undefined: `/`-separated
 * segments of unreserved characters, no empty segment (`//`, trailing `/`), no `.` or `..` segment and
 * no `%` escape. Our routes, ids and file keys need nothing else.
 */
export const canonicalPathOf = (url: string): string | undefined => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  if (path === "/" || path === ADMIN_CONSOLE_PATH) return path
  if (!CANONICAL_PATH.test(path)) return undefined
  return /\/\.\.?(?:\/|$)/.test(path) ? undefined : path
}

/** The path of a request, without its query (the request has passed the canonical check). */
export const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const AUTH_PREFIX = "/api/v1/auth/"

/** Routes of the auth group: the per-IP auth limit, `Cache-Control: no-store`, no per-user API limit. */
export const isAuthPath = (path: string) => path.startsWith(AUTH_PREFIX)

/** A route that takes a multipart body (the avatar), with its own body limit. */
export const AVATAR_PATH = "/api/v1/users/me/avatar"
/** The other route that takes a multipart body (a photo), with its own body limit. */
export const IMAGES_PATH = "/api/v1/images"
