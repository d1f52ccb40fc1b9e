import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** The current instant of Effect's `Clock` (what a test clock moves). */
export const currentDate: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
