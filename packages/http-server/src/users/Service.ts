import {
  DeviceTokenRepo,
  FileStore,
  Ids,
  type Language,
  PayloadTooLarge,
  type Platform,
  SellerProfileRepo,
  UnsupportedMediaType,
  type User,
  UserRepo,
  ValidationFailed
} from "@talab/core"
import { Clock, Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { processAvatar } from "./Avatar.js"

/** The signed-in user's profile, avatar and push devices. */
export class UsersService extends Effect.Service<UsersService>()("Users/Service", {
  effect: Effect.gen(function* () {
    const users = yield* UserRepo
    const profiles = yield* SellerProfileRepo
    const devices = yield* DeviceTokenRepo
    const files = yield* FileStore
    const ids = yield* Ids
    const config = yield* AppConfig

    const me = (user: User) =>
      Effect.map(profiles.findByUserId(user.id), (profile) => ({ user, sellerProfile: Option.getOrNull(profile) }))

    const updateMe = (user: User, changes: { readonly name?: string; readonly language?: Language }) =>
      Effect.gen(function* () {
        const updated: User = { ...user, name: changes.name ?? user.name, language: changes.language ?? user.language }
        yield* users.update(updated)
        return yield* me(updated)
      })

    /** Checks the image by its content, re-encodes it without metadata and stores it under a new name. */
    const setAvatar = (user: User, bytes: Uint8Array) =>
      Effect.gen(function* () {
        const image = yield* processAvatar(bytes).pipe(
          Effect.mapError((rejected) => {
            switch (rejected.reason) {
              case "too_large":
                return new PayloadTooLarge()
              case "unsupported_type":
                return new UnsupportedMediaType()
              case "too_many_pixels":
                return ValidationFailed.field("avatar", "avatar_too_many_pixels")
              case "corrupt":
                return ValidationFailed.field("avatar", "avatar_corrupt")
            }
          })
        )
        const key = `${yield* ids.next}.${image.extension}`
        yield* files.put(key, { bytes: image.bytes, contentType: image.contentType })
        const avatarUrl = `${config.publicUrl}/uploads/avatars/${key}`
        yield* users.update({ ...user, avatarUrl })
        return { avatarUrl }
      })

    /** Registers a push token; a token already known moves to this user. */
    const registerDevice = (user: User, platform: Platform, pushToken: string) =>
      Effect.gen(function* () {
        return yield* devices.upsert({
          id: yield* ids.next,
          userId: user.id,
          platform,
          pushToken,
          createdAt: new Date(yield* Clock.currentTimeMillis)
        })
      })

    return { me, updateMe, setAvatar, registerDevice } as const
  })
}) {}
