import { isLastUseStale, isSessionLive, SessionRepo } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { adminPolicy } from "../admin/Policy.js"
import { AppConfig } from "../config/AppConfig.js"
import { SessionCache, type SessionWithUser } from "./SessionCache.js"
import { type TokenClaims, Tokens } from "./Tokens.js"

/**
 * The one check of an access token, for REST (`http/Authentication.ts`) and the WebSocket's auth frame
 * (`realtime/Gateway.ts`): the token verified, its session found, live and the token's user's, its last use
 * recorded (at most once a minute, docs/DECISIONS.md "Sessions"). None for anything else. `verified` runs
 * between the token's check and the session's look-up: the socket binds itself to the session there, so an
 * end of the session racing the look-up still reaches it. The row comes from the session cache while it is
 * fresh (auth/SessionCache.ts): liveness and ownership are still checked against it on every call.
 */
export const makeSessionCheck = Effect.gen(function* () {
  const tokens = yield* Tokens
  const sessions = yield* SessionRepo
  const cache = yield* SessionCache
  const admins = adminPolicy((yield* AppConfig).adminPhoneNumbers)
  return <R = never>(
    token: string,
    verified: (claims: TokenClaims) => Effect.Effect<void, never, R> = () => Effect.void
  ): Effect.Effect<Option.Option<SessionWithUser>, never, R> =>
    Effect.gen(function* () {
      const claims = yield* tokens.verify(token, "access")
      if (claims === undefined) return Option.none()
      yield* verified(claims)
      const now = new Date(yield* Clock.currentTimeMillis)
      const found = yield* cache.find(claims.sessionId, sessions.findWithUser(claims.sessionId))
      if (Option.isNone(found)) return Option.none()
      const { session, user } = found.value
      if (!isSessionLive(session, now) || session.userId !== claims.userId) return Option.none()
      if (isLastUseStale(session, now)) {
        yield* sessions.touch(session.id, now)
        cache.touched(session.id, now)
      }
      return Option.some({ user: admins.effective(user), session })
    })
})
