import { translate } from "@talab/contract"
import {
  ACCESS_TOKEN_TTL_SECONDS,
  DeviceTokenRepo,
  Ids,
  InvalidRefreshToken,
  isSessionLive,
  issueOtp,
  type Language,
  type LogoutInput,
  NotFound,
  newUser,
  OTP_TTL_MS,
  OtpRepo,
  RateLimited,
  RateLimiter,
  REFRESH_TOKEN_TTL_SECONDS,
  type RefreshInput,
  type RequestOtpInput,
  SellerProfileRepo,
  type SessionDevice,
  SessionRepo,
  SmsSender,
  Transactor,
  type User,
  UserRepo,
  type VerifyOtpInput
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { maskPhone } from "../adapters/LogMasks.js"
import { adminPolicy } from "../admin/Policy.js"
import { AppConfig } from "../config/AppConfig.js"
import { isTestNumberActive } from "../config/TestPhoneNumbers.js"
import { CodeCheck } from "./CodeCheck.js"
import { OtpCodes } from "./OtpCodes.js"
import { parseMobileNumber } from "./Phone.js"
import { SessionEvents } from "./SessionEvents.js"
import { SmsBudget } from "./SmsBudget.js"
import { Tokens } from "./Tokens.js"

const OTP_WINDOW_MS = 10 * 60 * 1000

/** What a sign-in tells about where it comes from: the device the app named, the client's network. */
interface SignInContext {
  readonly device: SessionDevice | null
  readonly ipPrefix: string | null
}

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
    const smsBudget = yield* SmsBudget
    const codeCheck = yield* CodeCheck
    const admins = adminPolicy(config.adminPhoneNumbers)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** The test number entry for a number, while it still works (TEST_PHONE_NUMBERS). */
    const activeTestNumber = (phoneNumber: string, at: Date) =>
      config.testPhoneNumbers.find((entry) => entry.phoneNumber === phoneNumber && isTestNumberActive(entry, at))

    /**
     * The code to send and its challenge: the number's live code when there is one (the same code again, so
     * nobody's request takes it from the owner, in one statement so racing requests agree), else a new one.
     */
    const outstandingCode = (phoneNumber: string, at: Date) =>
      Effect.gen(function* () {
        const testNumber = activeTestNumber(phoneNumber, at)
        const expiresAt = new Date(at.getTime() + OTP_TTL_MS)
        const code = testNumber?.code ?? codes.codeFor(phoneNumber, expiresAt)
        const issued = issueOtp(phoneNumber, codes.hash(phoneNumber, code), at)
        const outstanding = yield* otps.issueUnlessLive(issued, at)
        if (outstanding.expiresAt.getTime() === issued.expiresAt.getTime() && outstanding.codeHash === issued.codeHash)
          return { code, challenge: issued }
        const live = [testNumber?.code, codes.codeFor(phoneNumber, outstanding.expiresAt)].find(
          (candidate) => candidate !== undefined && codes.matches(phoneNumber, candidate, outstanding.codeHash)
        )
        if (live !== undefined) return { code: live, challenge: outstanding }
        // A live code that cannot be made again (a test number's fixed code after its last day): replaced.
        yield* otps.replace(issued)
        return { code, challenge: issued }
      })

    /**
     * Sends a code to a mobile number of an allowed country, from a client `network`: the number's live code
     * again while it has one, else a new one. Answers the code's expiry and the limits the request was counted
     * against (the number's codes, the network's and everyone's SMS budget).
     */
    const requestOtp = (input: RequestOtpInput, requestLanguage: Language, network: string) =>
      Effect.gen(function* () {
        const phoneNumber = yield* parseMobileNumber(input.phoneNumber)
        yield* smsBudget.checkCountry(phoneNumber)
        const decision = yield* limiter.consume({
          key: `otp:${phoneNumber}`,
          limit: config.rateLimits.otpPer10Minutes,
          windowMs: OTP_WINDOW_MS
        })
        if (!decision.allowed)
          return yield* Effect.fail(new RateLimited({ retryAfterMs: decision.retryAfterMs, limit: decision.limit }))
        const limits = [decision, ...(yield* smsBudget.spend(network))]
        const at = yield* now
        const { code, challenge } = yield* outstandingCode(phoneNumber, at)
        const testNumber = activeTestNumber(phoneNumber, at)
        if (testNumber !== undefined && testNumber.code === code) {
          yield* Effect.logInfo("Auth: code for a test phone number, no SMS sent").pipe(
            Effect.annotateLogs({ phone: maskPhone(phoneNumber), last_day: testNumber.lastDay })
          )
          return { expiresAt: challenge.expiresAt, limits }
        }
        const known = yield* users.findByPhone(phoneNumber)
        const language = Option.match(known, { onNone: () => requestLanguage, onSome: (u) => u.language })
        yield* sms.send({ to: phoneNumber, body: translate("otp_sms", language, { code }), code }).pipe(Effect.orDie)
        return { expiresAt: challenge.expiresAt, limits }
      })

    const openSession = (user: User, signIn: SignInContext) =>
      Effect.gen(function* () {
        const at = yield* now
        const sessionId = yield* ids.next
        yield* sessions.insert({
          id: sessionId,
          userId: user.id,
          createdAt: at,
          expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
          revokedAt: null,
          lastUsedAt: at,
          device: signIn.device,
          ipPrefix: signIn.ipPrefix
        })
        return {
          access_token: yield* tokens.sign({ userId: user.id, sessionId, type: "access" }),
          refresh_token: yield* tokens.sign({ userId: user.id, sessionId, type: "refresh" }),
          expires_in: ACCESS_TOKEN_TTL_SECONDS
        }
      })

    /**
     * What a sign-in does once the code is right: the user of the number (created at their first sign-in; an
     * admin if listed) and a new session. Runs in the caller's transaction.
     */
    const admit = (phoneNumber: string, signIn: SignInContext) =>
      Effect.gen(function* () {
        const candidate = newUser({ id: yield* ids.next, phoneNumber, isAdmin: false, now: yield* now })
        const stored = yield* users.insertOrGet(candidate)
        const user = admins.effective(stored)
        const tokens = yield* openSession(user, signIn)
        // A user created just now (the id given) cannot have a seller profile yet: no need to look.
        const hasSellerProfile = stored.id !== candidate.id && Option.isSome(yield* profiles.findByUserId(user.id))
        return { user: { ...user, hasSellerProfile }, tokens }
      })

    /**
     * Checks a code (`CodeCheck`: the attempt is committed whatever the verdict, so a wrong code still uses up one
     * of the three attempts; the row lock makes exactly one of several racing right answers win) and signs in.
     * `ipPrefix` is the network the request came from.
     */
    const verifyOtp = (input: VerifyOtpInput, ipPrefix: string | null) =>
      Effect.gen(function* () {
        const phoneNumber = yield* parseMobileNumber(input.phoneNumber)
        const signedIn = yield* codeCheck.withCode(
          phoneNumber,
          input.otpCode,
          admit(phoneNumber, { device: input.device ?? null, ipPrefix })
        )
        const testNumber = activeTestNumber(phoneNumber, yield* now)
        if (testNumber !== undefined) {
          yield* Effect.logInfo("Auth: signed in with a test phone number").pipe(
            Effect.annotateLogs({ phone: maskPhone(phoneNumber), last_day: testNumber.lastDay })
          )
        }
        return signedIn
      })

    /**
     * Signs a number in as a right code would, with no code, no SMS and no limit: the testkit's sessions for
     * tests whose subject is not the sign-in. Never reachable from the API.
     */
    const signInWithoutCode = (rawPhone: string, signIn: SignInContext) =>
      Effect.flatMap(parseMobileNumber(rawPhone), (phoneNumber) => transactor.transaction(admit(phoneNumber, signIn)))

    /** A new access token for a live session's refresh token; the refresh token itself is kept. */
    const refresh = (input: RefreshInput) =>
      Effect.gen(function* () {
        const claims = yield* tokens.verify(input.refreshToken, "refresh")
        if (claims === undefined) return yield* Effect.fail(new InvalidRefreshToken())
        const session = yield* sessions.findById(claims.sessionId)
        const at = yield* now
        if (Option.isNone(session) || !isSessionLive(session.value, at)) {
          return yield* Effect.fail(new InvalidRefreshToken())
        }
        yield* sessions.touch(claims.sessionId, at)
        return {
          access_token: yield* tokens.sign({ userId: claims.userId, sessionId: claims.sessionId, type: "access" }),
          expires_in: ACCESS_TOKEN_TTL_SECONDS
        }
      })

    /** Tells every instance the sessions ended, so their sockets close (their tokens already fail: the row says so). */
    const announceEnded = (sessionIds: ReadonlyArray<string>) =>
      Effect.forEach(sessionIds, sessionEvents.revoked, { discard: true })

    /**
     * Ends the session (both its tokens), forgets the push tokens it registered and the device token given,
     * and closes its sockets.
     */
    const logout = (userId: string, sessionId: string, { deviceToken }: LogoutInput) =>
      Effect.gen(function* () {
        yield* transactor.transaction(
          Effect.gen(function* () {
            yield* sessions.revoke(sessionId, yield* now)
            yield* devices.removeForSessions([sessionId])
            if (deviceToken !== undefined) yield* devices.removeForUser(userId, deviceToken)
          })
        )
        yield* announceEnded([sessionId])
      })

    /** Ends one live session of the user, as logout does; any other id (another user's, ended, unknown) is 404. */
    const endSession = (userId: string, sessionId: string) =>
      Effect.gen(function* () {
        const ended = yield* transactor.transaction(
          Effect.gen(function* () {
            const revoked = yield* sessions.revokeOwned(userId, sessionId, yield* now)
            if (revoked) yield* devices.removeForSessions([sessionId])
            return revoked
          })
        )
        if (!ended) return yield* Effect.fail(new NotFound({ resource: "session" }))
        yield* announceEnded([sessionId])
      })

    /** Ends every live session of the user but the current one; answers how many it ended. */
    const endOtherSessions = (userId: string, currentSessionId: string) =>
      Effect.gen(function* () {
        const ended = yield* transactor.transaction(
          Effect.gen(function* () {
            const revoked = yield* sessions.revokeOthers(userId, currentSessionId, yield* now)
            yield* devices.removeForSessions(revoked)
            return revoked
          })
        )
        yield* announceEnded(ended)
        return ended.length
      })

    return { requestOtp, verifyOtp, signInWithoutCode, refresh, logout, endSession, endOtherSessions } as const
  }),
  dependencies: [OtpCodes.layer, SmsBudget.Default, CodeCheck.Default]
}) {}
