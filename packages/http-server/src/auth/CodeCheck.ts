import { attemptOtp, OtpRepo, Transactor } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OtpCodes } from "./OtpCodes.js"

/**
 * The one check of a code sent by SMS, for whatever a right code unlocks (a sign-in, an account's deletion): the
 * number's challenge locked, the attempt counted whatever the verdict (three per code, ten minutes), the code
 * consumed when right.
 */
export class CodeCheck extends Effect.Service<CodeCheck>()("Auth/CodeCheck", {
  effect: Effect.gen(function* () {
    const otps = yield* OtpRepo
    const codes = yield* OtpCodes
    const transactor = yield* Transactor

    /**
     * Runs `unlocked` in the transaction that consumes a right code. A wrong, expired or used code fails with its
     * error, and its attempt is committed all the same; should `unlocked` fail, everything rolls back, the
     * attempt and the code's use included.
     */
    const withCode = <A, E, R>(phoneNumber: string, code: string, unlocked: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const outcome = yield* transactor.transaction(
          Effect.gen(function* () {
            const at = new Date(yield* Clock.currentTimeMillis)
            const challenge = Option.getOrNull(yield* otps.lock(phoneNumber))
            const verdict = attemptOtp(
              challenge,
              challenge !== null && codes.matches(phoneNumber, code, challenge.codeHash),
              at
            )
            if (verdict.challenge !== null && verdict.challenge !== challenge) yield* otps.save(verdict.challenge)
            if (verdict._tag === "Rejected") return { _tag: "Rejected" as const, error: verdict.error }
            return { _tag: "Accepted" as const, value: yield* unlocked }
          })
        )
        if (outcome._tag === "Rejected") return yield* Effect.fail(outcome.error)
        return outcome.value
      })

    return { withCode } as const
  }),
  dependencies: [OtpCodes.layer]
}) {}
