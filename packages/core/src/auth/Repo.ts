import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { User } from "../users/User.js"
import type { isOtpLive, OtpChallenge } from "./Otp.js"
import type { Session } from "./Session.js"

/**
 * Port: stores sign-in sessions, what every access and refresh token is checked against; a revoked session signs its
 * tokens out.
 */
export class SessionRepo extends Context.Tag("@talab/core/SessionRepo")<
  SessionRepo,
  {
    readonly insert: (session: Session) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Session>>
    /** The session with its user, in one read: what every authenticated call checks. */
    readonly findWithUser: (
      id: string
    ) => Effect.Effect<Option.Option<{ readonly session: Session; readonly user: User }>>
    readonly revoke: (id: string, at: Date) => Effect.Effect<void>
    /** Ends the user's session `id` if it is live at `at`; answers whether it did (another user's: false). */
    readonly revokeOwned: (userId: string, id: string, at: Date) => Effect.Effect<boolean>
    /** Ends every live session of the user but `keepId`; answers the ids ended. */
    readonly revokeOthers: (userId: string, keepId: string, at: Date) => Effect.Effect<ReadonlyArray<string>>
    /** Ends every live session of the user; answers the ids ended. */
    readonly revokeAll: (userId: string, at: Date) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Whether the session is live at `at`; when it is, it cannot end (revoke waits) until the current
     * transaction does. What is written under it meanwhile is seen by whatever ends it.
     */
    readonly lockLive: (id: string, at: Date) => Effect.Effect<boolean>
    /** Records a use of the session at `at` (never moving `lastUsedAt` back). */
    readonly touch: (id: string, at: Date) => Effect.Effect<void>
  }
>() {}

/**
 * Port: stores the one code outstanding per phone number ({@link OtpChallenge}); `lock` reads it for update so racing
 * verifications count every attempt.
 */
export class OtpRepo extends Context.Tag("@talab/core/OtpRepo")<
  OtpRepo,
  {
    /** Replaces any code outstanding for the phone number. */
    readonly replace: (challenge: OtpChallenge) => Effect.Effect<void>
    /**
     * Stores `challenge` unless the number's code is still live at `now` ({@link isOtpLive}), in one step, so
     * racing requests agree on one code; answers the challenge outstanding after it (the live one, or `challenge`).
     */
    readonly issueUnlessLive: (challenge: OtpChallenge, now: Date) => Effect.Effect<OtpChallenge>
    readonly lock: (phoneNumber: string) => Effect.Effect<Option.Option<OtpChallenge>>
    readonly save: (challenge: OtpChallenge) => Effect.Effect<void>
  }
>() {}
