import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore, UniqueViolation } from "../memory/Store.js"
import { DeviceTokenRepo, UserRepo } from "./Repo.js"

/** {@link UserRepo} over the {@link MemoryStore}: one user per phone number. */
export const MemoryUserRepo = Layer.effect(
  UserRepo,
  Effect.map(MemoryStore, (store) =>
    UserRepo.of({
      findById: (id) => store.read((t) => HashMap.get(t.users, id)),
      findByPhone: (phoneNumber) => store.read((t) => rowWhere(t.users, (u) => u.phoneNumber === phoneNumber)),
      insertOrGet: (user) =>
        store.write((t) =>
          Option.match(
            rowWhere(t.users, (u) => u.phoneNumber === user.phoneNumber),
            {
              onSome: (stored) => unchanged(stored, t),
              onNone: () => [user, insertNew(t, "users", user.id, user, "users_pkey")] as const
            }
          )
        ),
      update: (user) =>
        store.write((t) =>
          Option.match(HashMap.get(t.users, user.id), {
            onNone: () => unchanged(undefined, t),
            onSome: (stored) => {
              const takenBy = rowWhere(t.users, (u) => u.phoneNumber === user.phoneNumber && u.id !== user.id)
              if (Option.isSome(takenBy)) throw new UniqueViolation({ constraint: "users_phone_number_key" })
              // isAdmin is an operator's grant: a profile change never writes it.
              const updated = { ...user, isAdmin: stored.isAdmin, createdAt: stored.createdAt }
              return [undefined, { ...t, users: HashMap.set(t.users, user.id, updated) }] as const
            }
          })
        )
    })
  )
)
/** {@link DeviceTokenRepo} over the {@link MemoryStore}: a push token is registered once, to its latest user. */
export const MemoryDeviceTokenRepo = Layer.effect(
  DeviceTokenRepo,
  Effect.map(MemoryStore, (store) => {
    const removeWhere = (
      matches: (token: {
        readonly userId: string
        readonly pushToken: string
        readonly sessionId: string | null
      }) => boolean
    ) =>
      store.write(
        (t) => [undefined, { ...t, deviceTokens: HashMap.filter(t.deviceTokens, (token) => !matches(token)) }] as const
      )
    return DeviceTokenRepo.of({
      upsert: (token) =>
        store.write((t) => {
          const stored = Option.match(HashMap.get(t.deviceTokens, token.pushToken), {
            onNone: () => token,
            onSome: (existing) => ({
              ...existing,
              userId: token.userId,
              platform: token.platform,
              sessionId: token.sessionId
            })
          })
          return [stored, { ...t, deviceTokens: HashMap.set(t.deviceTokens, token.pushToken, stored) }]
        }),
      removeForUser: (userId, pushToken) =>
        removeWhere((token) => token.userId === userId && token.pushToken === pushToken),
      removeToken: (pushToken) => removeWhere((token) => token.pushToken === pushToken),
      removeForSessions: (sessionIds) =>
        sessionIds.length === 0
          ? Effect.void
          : removeWhere((token) => token.sessionId !== null && sessionIds.includes(token.sessionId))
    })
  })
)
