import {
  attemptOtp,
  DeviceTokenRepo,
  Ids,
  InvalidRefreshToken,
  isSessionLive,
  issueOtp,
  type Language,
  newUser,
  OtpRepo,
  RateLimited,
  RateLimiter,
  SellerProfileRepo,
  SessionRepo,
  SmsSender,
  Transactor,
  type User,
  UserRepo
} from "@talab/core"
import { Clock, Effect, Option } from "effect"
import { adminPolicy } from "../admin/Policy.js"
import { AppConfig } from "../config/AppConfig.js"
import { translate } from "../i18n/messages.js"
import { OtpCodes } from "./OtpCodes.js"
import { parseMobileNumber } from "./Phone.js"
import { SessionEvents } from "./SessionEvents.js"
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, Tokens } from "./Tokens.js"

const OTP_WINDOW_MS = 10 * 60 * 1000

/** Sign-in by phone and one-time code, sessions, refresh and logout. */
export class AuthService extends Effect.Service<AuthService>()("Auth/Service", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const otps = yield* OtpRepo
    const codes = yield* OtpCodes
    const users = yield* UserRepo
    const sessions = yield* SessionRepo
    const devices = yield* DeviceTokenRepo
    const profiles = yield* SellerProfileRepo
    const tokens = yield* Tokens
    const sms = yield* SmsSender
    const limiter = yield* RateLimiter
    const transactor = yield* Transactor
    const ids = yield* Ids
    const sessionEvents = yield* SessionEvents
    const admins = adminPolicy(config.adminPhoneNumbers)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * Sends a fresh code to a mobile number; a new code replaces the previous one. Answers the code's
     * expiry and the number's remaining budget of codes.
     */
    const requestOtp = (rawPhone: string, requestLanguage: Language) =>
      Effect.gen(function* () {
        const phoneNumber = yield* parseMobileNumber(rawPhone)
        const decision = yield* limiter.consume({
          key: `otp:${phoneNumber}`,
          limit: config.rateLimits.otpPer10Minutes,
          windowMs: OTP_WINDOW_MS
        })
        if (!decision.allowed)
          return yield* Effect.fail(new RateLimited({ retryAfterMs: decision.retryAfterMs, limit: decision.limit }))
        const code = yield* codes.generate
        const challenge = issueOtp(phoneNumber, codes.hash(phoneNumber, code), yield* now)
        yield* otps.replace(challenge)
        const known = yield* users.findByPhone(phoneNumber)
        const language = Option.match(known, { onNone: () => requestLanguage, onSome: (u) => u.language })
        yield* sms.send({ to: phoneNumber, body: translate("otp_sms", language, { code }), code }).pipe(Effect.orDie)
        return { expiresAt: challenge.expiresAt, phoneLimit: decision }
      })

    const openSession = (user: User) =>
      Effect.gen(function* () {
        const at = yield* now
        const sessionId = yield* ids.next
        yield* sessions.insert({
          id: sessionId,
          userId: user.id,
          createdAt: at,
          expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
          revokedAt: null
        })
        return {
          access_token: yield* tokens.sign({ userId: user.id, sessionId, type: "access" }),
          refresh_token: yield* tokens.sign({ userId: user.id, sessionId, type: "refresh" }),
          expires_in: ACCESS_TOKEN_TTL_SECONDS
        }
      })

    /**
     * Checks a code. The attempt is committed whatever the verdict, so a wrong code still uses up one
     * of the three attempts; the row lock makes exactly one of several racing right answers win.
     */
    const verifyOtp = (rawPhone: string, code: string) =>
      Effect.gen(function* () {
        const phoneNumber = yield* parseMobileNumber(rawPhone)
        const outcome = yield* transactor.transaction(
          Effect.gen(function* () {
            const at = yield* now
            const challenge = Option.getOrNull(yield* otps.lock(phoneNumber))
            const verdict = attemptOtp(
              challenge,
              challenge !== null && codes.matches(phoneNumber, code, challenge.codeHash),
              at
            )
            if (verdict.challenge !== null && verdict.challenge !== challenge) yield* otps.save(verdict.challenge)
            if (verdict._tag === "Rejected") return { _tag: "Rejected" as const, error: verdict.error }
            const candidate = newUser({ id: yield* ids.next, phoneNumber, isAdmin: false, now: at })
            const stored = yield* users.insertOrGet(candidate)
            const user = admins.effective(stored)
            const issued = yield* openSession(user)
            // A user created just now (the id given) cannot have a seller profile yet: no need to look.
            const hasSellerProfile = stored.id !== candidate.id && Option.isSome(yield* profiles.findByUserId(user.id))
            return { _tag: "Accepted" as const, user, tokens: issued, hasSellerProfile }
          })
        )
        if (outcome._tag === "Rejected") return yield* Effect.fail(outcome.error)
        return outcome
      })

    /** A new access token for a live session's refresh token; the refresh token itself is kept. */
    const refresh = (refreshToken: string) =>
      Effect.gen(function* () {
        const claims = yield* tokens.verify(refreshToken, "refresh")
        if (claims === undefined) return yield* Effect.fail(new InvalidRefreshToken())
        const session = yield* sessions.findById(claims.sessionId)
        if (Option.isNone(session) || !isSessionLive(session.value, yield* now)) {
          return yield* Effect.fail(new InvalidRefreshToken())
        }
        return {
          access_token: yield* tokens.sign({ userId: claims.userId, sessionId: claims.sessionId, type: "access" }),
          expires_in: ACCESS_TOKEN_TTL_SECONDS
        }
      })

    /** Ends the session (both its tokens), forgets the device's push token and closes its sockets. */
    const logout = (userId: string, sessionId: string, deviceToken: string | undefined) =>
      Effect.gen(function* () {
        yield* transactor.transaction(
          Effect.gen(function* () {
            yield* sessions.revoke(sessionId, yield* now)
            if (deviceToken !== undefined) yield* devices.removeForUser(userId, deviceToken)
          })
        )
        yield* sessionEvents.revoked(sessionId)
      })

    return { requestOtp, verifyOtp, refresh, logout } as const
  })
}) {}
