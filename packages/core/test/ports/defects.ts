import { Cause, Effect, Exit, Option } from "effect"
import { expect } from "vitest"

/** Runs an effect that must die, not fail: port signatures carry no infrastructure errors. Answers the defect. */
export const defectOf = (effect: Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    expect(Exit.isFailure(exit), "the effect succeeded").toBe(true)
    if (Exit.isSuccess(exit)) return undefined
    expect(Option.isNone(Cause.failureOption(exit.cause)), "a typed failure leaked out of a port").toBe(true)
    return Option.getOrThrow(Cause.dieOption(exit.cause))
  })
