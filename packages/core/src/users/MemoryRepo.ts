import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore } from "../memory/Store.js"
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
      updateProfile: (id, changes) =>
        store.write((t) =>
          Option.match(HashMap.get(t.users, id), {
            onNone: () => unchanged(Option.none(), t),
            onSome: (stored) => {
              const updated = {
                ...stored,
                name: changes.name ?? stored.name,
                language: changes.language ?? stored.language
              }
              return [Option.some(updated), { ...t, users: HashMap.set(t.users, id, updated) }] as const
            }
          })
        ),
      replaceAvatar: (id, avatarUrl) =>
        store.write((t) =>
          Option.match(HashMap.get(t.users, id), {
            onNone: () => unchanged(Option.none(), t),
            onSome: (stored) =>
              [
                Option.some(stored.avatarUrl),
                { ...t, users: HashMap.set(t.users, id, { ...stored, avatarUrl }) }
              ] as const
          })
        ),
      // The memory tables keep no deleted rows: the id lives on only where other rows name it.
      erase: (id) =>
        store.write((t) =>
          Option.match(HashMap.get(t.users, id), {
            onNone: () => unchanged(Option.none(), t),
            onSome: (stored) => [Option.some(stored.avatarUrl), { ...t, users: HashMap.remove(t.users, id) }] as const
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
      removeAllOfUser: (userId) => removeWhere((token) => token.userId === userId),
      removeForSessions: (sessionIds) =>
        sessionIds.length === 0
          ? Effect.void
          : removeWhere((token) => token.sessionId !== null && sessionIds.includes(token.sessionId))
    })
  })
)
