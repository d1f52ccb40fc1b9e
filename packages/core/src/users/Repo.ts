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
    /**
     * Writes only the columns given (name, language) and answers the user as now stored; none for an unknown id.
     * Only those columns: a write of the whole row would put back what another request changed meanwhile.
     */
    readonly updateProfile: (
      id: string,
      changes: { readonly name?: string; readonly language?: User["language"] }
    ) => Effect.Effect<Option.Option<User>>
    /**
     * Writes only `avatar_url` and answers the URL it replaced (null for none; none for an unknown id), read under
     * the same row lock, so of two racing uploads each learns exactly which file it made obsolete.
     */
    readonly replaceAvatar: (id: string, avatarUrl: string) => Effect.Effect<Option.Option<string | null>>
    /**
     * Deletes the account but its id: the phone number, name and avatar are erased and the row is marked deleted
     * at `at`, so what other people hold still names it and the number can sign up again as a new user. Answers
     * the avatar URL it erased (null for none; none when the user is unknown or deleted already).
     */
    readonly erase: (id: string, at: Date) => Effect.Effect<Option.Option<string | null>>
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
    /** Removes every push token of the user. */
    readonly removeAllOfUser: (userId: string) => Effect.Effect<void>
  }
>() {}
