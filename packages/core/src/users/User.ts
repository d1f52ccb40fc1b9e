import * as Schema from "effect/Schema"
import { Language, Platform } from "../shared/Values.js"

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
