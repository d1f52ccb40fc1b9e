import type { Session, User } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * A session with its user, as `SessionRepo.findWithUser` reads them; what a session check answers (the user
 * then carries their effective admin flag).
 */
export interface SessionWithUser {
  readonly session: Session
  readonly user: User
}

export interface SessionCacheService {
  /** The session and its user: from memory while fresh, else `load`ed (and kept when found). */
  readonly find: (
    sessionId: string,
    load: Effect.Effect<Option.Option<SessionWithUser>>
  ) => Effect.Effect<Option.Option<SessionWithUser>>
  /** Records a new last use of a kept session (the row was just written). */
  readonly touched: (sessionId: string, at: Date) => void
  /** The session ended (logout, revoke): the next check reads the row. */
  readonly forgetSession: (sessionId: string) => void
  /** The user's row changed (profile, language, avatar, admin grant): every session of theirs is read again. */
  readonly forgetUser: (userId: string) => void
  /**
   * Whether changes made elsewhere reach this cache. False (the channel that carries them is away): nothing
   * kept is trusted and nothing is kept, every check reads its row. True again: it starts from empty.
   */
  readonly trust: (changesHeard: boolean) => void
  /** How many sessions are kept (for tests and metrics). */
  readonly size: () => number
}

/** At most this long between reads of a kept row: a bound for changes no event reaches (docs/SCALING.md). */
const SESSION_CACHE_TTL_MS = 30_000
/** At most this many sessions are kept; the oldest kept go first. */
const SESSION_CACHE_MAX_ENTRIES = 50_000

interface Entry {
  value: SessionWithUser
  readonly keptAt: number
}

/**
 * Signed-in users by session id, so an authenticated call does not pay a query for its session (the
 * session's read was half the queries of a detail read). Changes reach it as events: every end of a
 * session and every change of a user row, on this instance (`forgetSession`, `forgetUser`) and from the
 * others through the realtime fan-out (Redis); while that fan-out cannot hear them, the cache keeps nothing. A
 * kept row is read again after `ttlMs` whatever happens. Only found rows are kept: an unknown id costs its query each
 * time but no memory.
 *
 * A read that started before a change must not put back what the change forgot: every change bumps a
 * generation, and a row read under an older generation is returned but not kept.
 */
export const makeSessionCache = (options: { readonly ttlMs?: number; readonly maxEntries?: number } = {}) => {
  const ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS
  const maxEntries = options.maxEntries ?? SESSION_CACHE_MAX_ENTRIES
  const entries = new Map<string, Entry>()
  const sessionsOfUser = new Map<string, Set<string>>()
  let generation = 0
  let trusted = true

  const remove = (sessionId: string) => {
    const entry = entries.get(sessionId)
    if (entry === undefined) return
    entries.delete(sessionId)
    const userId = entry.value.user.id
    const sessions = sessionsOfUser.get(userId)
    sessions?.delete(sessionId)
    if (sessions?.size === 0) sessionsOfUser.delete(userId)
  }

  const keep = (sessionId: string, value: SessionWithUser, now: number) => {
    remove(sessionId)
    if (entries.size >= maxEntries) remove(entries.keys().next().value!)
    entries.set(sessionId, { value, keptAt: now })
    const sessions = sessionsOfUser.get(value.user.id)
    if (sessions === undefined) sessionsOfUser.set(value.user.id, new Set([sessionId]))
    else sessions.add(sessionId)
  }

  const service: SessionCacheService = {
    find: (sessionId, load) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const entry = entries.get(sessionId)
        if (entry !== undefined && now - entry.keptAt < ttlMs) return Effect.succeed(Option.some(entry.value))
        const before = generation
        return Effect.tap(load, (found) =>
          Effect.sync(() => {
            if (generation !== before || !trusted) return
            if (Option.isSome(found)) keep(sessionId, found.value, now)
            else remove(sessionId)
          })
        )
      }),
    touched: (sessionId, at) => {
      const entry = entries.get(sessionId)
      if (entry !== undefined) entry.value = { ...entry.value, session: { ...entry.value.session, lastUsedAt: at } }
    },
    forgetSession: (sessionId) => {
      generation++
      remove(sessionId)
    },
    forgetUser: (userId) => {
      generation++
      for (const sessionId of sessionsOfUser.get(userId) ?? []) remove(sessionId)
    },
    trust: (changesHeard) => {
      generation++
      trusted = changesHeard
      entries.clear()
      sessionsOfUser.clear()
    },
    size: () => entries.size
  }
  return service
}

/** The process's one session cache, shared by REST's and the WebSocket's session check and the realtime hub. */
export class SessionCache extends Context.Tag("Auth/SessionCache")<SessionCache, SessionCacheService>() {
  static readonly layer: Layer.Layer<SessionCache> = Layer.sync(SessionCache, () => makeSessionCache())
}
