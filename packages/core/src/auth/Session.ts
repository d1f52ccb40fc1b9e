import * as Schema from "effect/Schema"
import { Platform } from "../shared/Values.js"

/** The device a session signed in on, as the app described it at sign-in. */
export const SessionDevice = Schema.Struct({ platform: Platform, name: Schema.String })
export interface SessionDevice extends Schema.Schema.Type<typeof SessionDevice> {}

/** A sign-in session; its access and refresh tokens carry its id, and ending it revokes both. */
export const Session = Schema.Struct({
  id: Schema.UUID,
  userId: Schema.UUID,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf),
  /** When a token of the session was last used, to within `SESSION_LAST_USED_GRANULARITY_MS`. */
  lastUsedAt: Schema.DateFromSelf,
  device: Schema.NullOr(SessionDevice),
  /** The network the session signed in from, never the full address (IPv4 /24, IPv6 /48). */
  ipPrefix: Schema.NullOr(Schema.String)
})
export interface Session extends Schema.Schema.Type<typeof Session> {}

/** How long an access token is valid (spec: 86400 seconds); its `expires_in`. */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400

/** How long a refresh token, and so its session, is valid: 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400

/** How stale `lastUsedAt` may get: a call refreshes it only when it is at least this old. */
export const SESSION_LAST_USED_GRANULARITY_MS = 60_000

/** Whether a call at `now` should write the session's `lastUsedAt`. */
export const isLastUseStale = (session: Session, now: Date) =>
  now.getTime() - session.lastUsedAt.getTime() >= SESSION_LAST_USED_GRANULARITY_MS

/** Whether the session can still be used at `now`: not revoked and not past its expiry. */
export const isSessionLive = (session: Session, now: Date) =>
  session.revokedAt === null && session.expiresAt.getTime() > now.getTime()
