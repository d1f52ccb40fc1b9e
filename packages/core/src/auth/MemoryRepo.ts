import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, rowsWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore, type Tables } from "../memory/Store.js"
import { isOtpLive } from "./Otp.js"
import { OtpRepo, SessionRepo } from "./Repo.js"
import type { Session } from "./Session.js"

const isLive = (session: Session, at: Date) => session.revokedAt === null && session.expiresAt > at

const revokeAll = (tables: Tables, ids: ReadonlyArray<string>, at: Date): Tables => ({
  ...tables,
  sessions: ids.reduce(
    (sessions, id) => HashMap.modify(sessions, id, (session) => ({ ...session, revokedAt: at })),
    tables.sessions
  )
})
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
      revokeAll: (userId, at) =>
        store.write((t) => {
          const ended = rowsWhere(t.sessions, (s) => s.userId === userId && isLive(s, at)).map((s) => s.id)
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
      issueUnlessLive: (challenge, now) =>
        store.write((t) => {
          const outstanding = HashMap.get(t.otpChallenges, challenge.phoneNumber)
          if (Option.isSome(outstanding) && isOtpLive(outstanding.value, now)) return unchanged(outstanding.value, t)
          return [challenge, { ...t, otpChallenges: HashMap.set(t.otpChallenges, challenge.phoneNumber, challenge) }]
        }),
      lock: (phoneNumber) => store.write((t) => unchanged(HashMap.get(t.otpChallenges, phoneNumber), t)),
      save: (challenge) =>
        store.write((t) => [
          undefined,
          { ...t, otpChallenges: HashMap.modify(t.otpChallenges, challenge.phoneNumber, () => challenge) }
        ])
    })
  )
)
