import type { Language } from "./Values.js"

/** A person signed in by phone number. Every user may buy; sellers also have an approved seller profile. */
export interface User {
  readonly id: string
  readonly phoneNumber: string
  readonly name: string | null
  readonly avatarUrl: string | null
  readonly language: Language
  readonly isAdmin: boolean
  readonly createdAt: Date
}

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

/** A sign-in session; its access and refresh tokens carry its id, and ending it revokes both. */
export interface Session {
  readonly id: string
  readonly userId: string
  readonly createdAt: Date
  readonly expiresAt: Date
  readonly revokedAt: Date | null
}

export const isSessionLive = (session: Session, now: Date) =>
  session.revokedAt === null && session.expiresAt.getTime() > now.getTime()

/** A push token registered by a device. */
export interface DeviceToken {
  readonly id: string
  readonly userId: string
  readonly platform: "ios" | "android" | "web"
  readonly pushToken: string
  readonly createdAt: Date
}
