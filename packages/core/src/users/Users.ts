import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SessionRepo } from "../auth/Repo.js"
import { withoutContactDetails } from "../chat/ContactMasking.js"
import { Ids } from "../platform/Ids.js"
import { Unauthorized } from "../shared/Errors.js"
import { OneOf, Optional, Text } from "../shared/Fields.js"
import { currentDate } from "../shared/Now.js"
import { Transactor } from "../shared/Transactor.js"
import { Language, Platform } from "../shared/Values.js"
import { DeviceTokenRepo, UserRepo } from "./Repo.js"
import type { User } from "./User.js"

/** What a user may change of their own profile: their name and language (that of their pushes); what is absent stays. */
export const ProfileChanges = Schema.Struct({
  name: Optional(withoutContactDetails(Text(1, 100))),
  language: Optional(OneOf(...Language.literals))
})
export type ProfileChanges = typeof ProfileChanges.Type

/** A device's push token, as FCM or APNs gave it to the app. */
export const PushToken = Text(1, 4096)

/** A device's push token and its platform. */
export const DeviceRegistration = Schema.Struct({
  platform: OneOf(...Platform.literals),
  pushToken: PushToken
})
export type DeviceRegistration = typeof DeviceRegistration.Type

/** The user workflows: the signed-in user's profile and push devices. */
export class Users extends Effect.Service<Users>()("@talab/core/Users", {
  effect: Effect.gen(function* () {
    const users = yield* UserRepo
    const devices = yield* DeviceTokenRepo
    const sessions = yield* SessionRepo
    const transactor = yield* Transactor
    const ids = yield* Ids

    /**
     * Writes the user's name and language, and nothing else: an avatar stored meanwhile stays. Answers the user as
     * now stored (the caller, unchanged, should the account be gone), with the caller's effective `isAdmin`, which
     * may come from the server's settings rather than the row.
     */
    const updateProfile = (user: User, changes: ProfileChanges) =>
      Effect.map(
        users.updateProfile(user.id, {
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.language === undefined ? {} : { language: changes.language })
        }),
        Option.match({ onNone: () => user, onSome: (stored): User => ({ ...stored, isAdmin: user.isAdmin }) })
      )

    /**
     * Registers a push token under the caller's session; a token already known moves to this user and session.
     * The session is locked meanwhile, so a token cannot land under a session that was just ended (and whose
     * tokens were removed): ending it waits for this, then removes this token too, or this fails `Unauthorized`.
     */
    const registerDevice = (user: User, sessionId: string, device: DeviceRegistration) =>
      transactor.transaction(
        Effect.gen(function* () {
          const at = yield* currentDate
          if (!(yield* sessions.lockLive(sessionId, at))) return yield* Effect.fail(new Unauthorized())
          return yield* devices.upsert({ id: yield* ids.next, userId: user.id, sessionId, ...device, createdAt: at })
        })
      )

    return { updateProfile, registerDevice } as const
  })
}) {}
