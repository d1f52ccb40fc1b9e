import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DeviceTokenRepo, OtpRepo, SessionRepo, UserRepo } from "../ports/Repositories.js"
import type { Session } from "../User.js"
import { insertNew, rowsWhere, rowWhere, unchanged } from "./Rows.js"
import { MemoryStore, type Tables, UniqueViolation } from "./Store.js"

const isLive = (session: Session, at: Date) => session.revokedAt === null && session.expiresAt > at

const revokeAll = (tables: Tables, ids: ReadonlyArray<string>, at: Date): Tables => ({
  ...tables,
  sessions: ids.reduce(
    (sessions, id) => HashMap.modify(sessions, id, (session) => ({ ...session, revokedAt: at })),
    tables.sessions
  )
})

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

/** {@link SessionRepo} over the {@link MemoryStore}. */
export const MemorySessionRepo = Layer.effect(
  SessionRepo,
  Effect.map(MemoryStore, (store) =>
    SessionRepo.of({
      insert: (session) =>
        store.write((t) => [undefined, insertNew(t, "sessions", session.id, session, "sessions_pkey")] as const),
      findById: (id) => store.read((t) => HashMap.get(t.sessions, id)),
      findWithUser: (id) =>
        store.read((t) =>
          Option.flatMap(HashMap.get(t.sessions, id), (session) =>
            Option.map(HashMap.get(t.users, session.userId), (user) => ({ session, user }))
          )
        ),
      revoke: (id, at) =>
        store.write((t) =>
          Option.match(HashMap.get(t.sessions, id), {
            onSome: (session) =>
              session.revokedAt === null ? [undefined, revokeAll(t, [id], at)] : unchanged(undefined, t),
            onNone: () => unchanged(undefined, t)
          })
        ),
      revokeOwned: (userId, id, at) =>
        store.write((t) => {
          const owned = Option.filter(HashMap.get(t.sessions, id), (s) => s.userId === userId && isLive(s, at))
          return Option.isSome(owned) ? [true, revokeAll(t, [id], at)] : unchanged(false, t)
        }),
      revokeOthers: (userId, keepId, at) =>
        store.write((t) => {
          const ended = rowsWhere(t.sessions, (s) => s.userId === userId && s.id !== keepId && isLive(s, at)).map(
            (s) => s.id
          )
          return [ended, revokeAll(t, ended, at)]
        }),
      lockLive: (id, at) =>
        store.write((t) =>
          unchanged(
            Option.exists(HashMap.get(t.sessions, id), (s) => isLive(s, at)),
            t
          )
        ),
      touch: (id, at) =>
        store.write((t) => [
          undefined,
          {
            ...t,
            sessions: HashMap.modify(t.sessions, id, (s) => (s.lastUsedAt < at ? { ...s, lastUsedAt: at } : s))
          }
        ])
    })
  )
)

/** {@link OtpRepo} over the {@link MemoryStore}: one outstanding code per phone number. */
export const MemoryOtpRepo = Layer.effect(
  OtpRepo,
  Effect.map(MemoryStore, (store) =>
    OtpRepo.of({
      replace: (challenge) =>
        store.write((t) => [
          undefined,
          { ...t, otpChallenges: HashMap.set(t.otpChallenges, challenge.phoneNumber, challenge) }
        ]),
      lock: (phoneNumber) => store.write((t) => unchanged(HashMap.get(t.otpChallenges, phoneNumber), t)),
      save: (challenge) =>
        store.write((t) => [
          undefined,
          { ...t, otpChallenges: HashMap.modify(t.otpChallenges, challenge.phoneNumber, () => challenge) }
        ])
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
