import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { DeviceToken, User } from "./User.js"

/** Port: stores users (accounts, found by id or phone number). */
export class UserRepo extends Context.Tag("@talab/core/UserRepo")<
  UserRepo,
  {
    readonly findById: (id: string) => Effect.Effect<Option.Option<User>>
    readonly findByPhone: (phoneNumber: string) => Effect.Effect<Option.Option<User>>
    /** Inserts the user unless the phone number exists; answers the stored user either way. */
    readonly insertOrGet: (user: User) => Effect.Effect<User>
    /** Writes the profile (name, avatar, language); never `isAdmin`, which only an operator's grant sets. */
    readonly update: (user: User) => Effect.Effect<void>
  }
>() {}

/** Port: stores the push tokens of users' devices, each tied to the session that registered it. */
export class DeviceTokenRepo extends Context.Tag("@talab/core/DeviceTokenRepo")<
  DeviceTokenRepo,
  {
    /** Registers a push token; an existing one moves to this user and session. Answers the stored token. */
    readonly upsert: (token: DeviceToken) => Effect.Effect<DeviceToken>
    readonly removeForUser: (userId: string, pushToken: string) => Effect.Effect<void>
    readonly removeToken: (pushToken: string) => Effect.Effect<void>
    /** Removes the tokens registered under these sessions. */
    readonly removeForSessions: (sessionIds: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}
