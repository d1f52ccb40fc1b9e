import {
  type DeleteAccountInput,
  type DeviceRegistration,
  FileStore,
  Ids,
  type ProfileChanges,
  requireNotAdmin,
  SellerProfileRepo,
  type User,
  UserRepo,
  Users
} from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CodeCheck } from "../auth/CodeCheck.js"
import { SessionEvents } from "../auth/SessionEvents.js"
import { AppConfig } from "../config/AppConfig.js"
import type { ImageRejected } from "../images/Decode.js"
import { DecodeGate } from "../images/DecodeGate.js"
import { rejectionAsDomainError } from "../images/Rejections.js"
import { decodeAvatar, screenAvatar } from "./Avatar.js"
import { AVATAR_PATH, avatarKeyOf } from "./AvatarUrl.js"
import { AccountErasure } from "./Erasure.js"
import { AccountExportQueries } from "./Export.js"

const asDomainError = (rejected: ImageRejected) => rejectionAsDomainError(rejected, "avatar", "avatar")

/** The signed-in user's profile, avatar and push devices. */
export class UsersService extends Effect.Service<UsersService>()("Users/Service", {
  effect: Effect.gen(function* () {
    const users = yield* UserRepo
    const profiles = yield* SellerProfileRepo
    const workflows = yield* Users
    const files = yield* FileStore
    const ids = yield* Ids
    const config = yield* AppConfig
    const decodeGate = yield* DecodeGate
    const sessionEvents = yield* SessionEvents
    const codeCheck = yield* CodeCheck
    const erasure = yield* AccountErasure
    const exports = yield* AccountExportQueries

    const me = (user: User) =>
      Effect.map(profiles.findByUserId(user.id), (profile) => ({ user, sellerProfile: Option.getOrNull(profile) }))

    const updateMe = (user: User, changes: ProfileChanges) =>
      Effect.gen(function* () {
        const updated = yield* workflows.updateProfile(user, changes)
        yield* sessionEvents.userChanged(user.id)
        return yield* me(updated)
      })

    /** Failing to remove a replaced file only leaves it behind: the new avatar is already in place. */
    const deleteReplaced = (key: string) =>
      files
        .delete(key)
        .pipe(
          Effect.catchAllDefect((defect) =>
            Effect.logWarning("Users: a replaced avatar file was not deleted").pipe(
              Effect.annotateLogs({ key, defect: String(defect) })
            )
          )
        )

    /**
     * Checks the image by its content, re-encodes it without metadata (waiting for a decoding slot, or 503
     * when too many wait) and stores it under a new name; the replaced file goes once the user row names the
     * new one, so a failed upload leaves the old avatar whole.
     */
    const setAvatar = (user: User, bytes: Uint8Array) =>
      Effect.gen(function* () {
        const type = yield* screenAvatar(bytes).pipe(Effect.mapError(asDomainError))
        const image = yield* decodeGate.run(decodeAvatar(bytes, type).pipe(Effect.mapError(asDomainError)))
        const key = `${yield* ids.next}.${image.extension}`
        yield* files.put(key, { bytes: image.bytes, contentType: image.contentType })
        // Stored as its path (the repository keeps only that), answered on today's PUBLIC_URL.
        const avatarUrl = `${config.publicUrl}${AVATAR_PATH}${key}`
        // Only avatar_url is written: a name or language saved during the decoding stays.
        const replacedUrl = yield* users.replaceAvatar(user.id, avatarUrl)
        yield* sessionEvents.userChanged(user.id)
        const replaced = avatarKeyOf(Option.getOrNull(replacedUrl))
        if (replaced !== undefined && replaced !== key) yield* deleteReplaced(replaced)
        return { avatarUrl }
      })

    /** Registers a push token under the caller's session (core's `Users.registerDevice`). */
    const registerDevice = (user: User, sessionId: string, device: DeviceRegistration) =>
      workflows.registerDevice(user, sessionId, device)

    /**
     * Deletes the caller's account once the code sent to their number checks out, in the transaction that
     * consumes it: a refusal (open deals) leaves the code and everything else as they were.
     */
    const deleteMe = (user: User, input: DeleteAccountInput) =>
      Effect.gen(function* () {
        yield* requireNotAdmin(user)
        const deleted = yield* codeCheck.withCode(user.phoneNumber, input.otpCode, erasure.deleteInTransaction(user))
        yield* erasure.afterCommit(user.id, deleted)
        return { deletedAt: deleted.deletedAt }
      })

    return { me, updateMe, setAvatar, registerDevice, deleteMe, exportOf: exports.exportOf } as const
  }),
  dependencies: [Users.Default, CodeCheck.Default, AccountExportQueries.Default]
}) {}
