import type { CurrentUser } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { requestState } from "./RequestState.js"

/**
 * The caller `Authentication` resolved for this request, for the middlewares declared after it (ApiRateLimit,
 * AdminOnly): read from the request's state, so the session is looked up once. Declared without
 * Authentication before them, they fail loudly (a defect, a 500) rather than let a request through.
 */
export const signedInCaller: Effect.Effect<CurrentUser["Type"]> = Effect.flatMap(requestState, (state) =>
  state.caller !== undefined && Option.isSome(state.caller)
    ? Effect.succeed(state.caller.value)
    : Effect.dieMessage("a middleware that needs the caller ran before Authentication")
)
