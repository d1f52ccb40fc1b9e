import * as Schema from "effect/Schema"
import { Language, Platform } from "./Values.js"

/** A person signed in by phone number. Every user may buy; sellers also have an approved seller profile. */
export const User = Schema.Struct({
  id: Schema.UUID,
  phoneNumber: Schema.String,
  name: Schema.NullOr(Schema.String),
  avatarUrl: Schema.NullOr(Schema.String),
  language: Language,
  isAdmin: Schema.Boolean,
  createdAt: Schema.DateFromSelf
})
export interface User extends Schema.Schema.Type<typeof User> {}

/** A user created at first sign-in: no name yet, Arabic. */
export const newUser = (args: { id: string; phoneNumber: string; isAdmin: boolean; now: Date }): User => ({
  id: args.id,
  phoneNumber: args.phoneNumber,
  name: null,
  avatarUrl: null,
  language: "ar",
  isAdmin: args.isAdmin,
  createdAt: args.now
})

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

/** How stale `lastUsedAt` may get: a call refreshes it only when it is at least this old. */
export const SESSION_LAST_USED_GRANULARITY_MS = 60_000

/** Whether a call at `now` should write the session's `lastUsedAt`. */
export const isLastUseStale = (session: Session, now: Date) =>
  now.getTime() - session.lastUsedAt.getTime() >= SESSION_LAST_USED_GRANULARITY_MS

/** Whether the session can still be used at `now`: not revoked and not past its expiry. */
export const isSessionLive = (session: Session, now: Date) =>
  session.revokedAt === null && session.expiresAt.getTime() > now.getTime()

/** A push token registered by a device. */
export const DeviceToken = Schema.Struct({
  id: Schema.UUID,
  userId: Schema.UUID,
  platform: Platform,
  pushToken: Schema.String,
  /** The session that registered it; ending that session removes it. Null for tokens registered before sessions owned their tokens. */
  sessionId: Schema.NullOr(Schema.UUID),
  createdAt: Schema.DateFromSelf
})
export interface DeviceToken extends Schema.Schema.Type<typeof DeviceToken> {}
