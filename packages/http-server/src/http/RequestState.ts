import type { CurrentUser } from "@talab/contract"
import type { Language, RateLimitDecision } from "@talab/core"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as Option from "effect/Option"
import type { Cacheable } from "../readcache/ReadCache.js"

/**
 * What the handling of one request learns that its answer needs later, whoever builds that answer: the caller
 * once resolved (the idempotency middleware and the endpoint's bearer check both ask), the caller's language
 * (for the answers made after the handler: decode failures, the envelope of a 429), and the tightest rate-limit
 * decision it was counted against (for the RateLimit-* headers). The request pipeline makes one per request.
 */
export class RequestState {
  /** The request's id (X-Request-Id), which an audit entry records. */
  requestId: string | undefined = undefined
  caller: Option.Option<CurrentUser["Type"]> | undefined = undefined
  userLanguage: Language | undefined = undefined
  rateLimit: RateLimitDecision | undefined = undefined
  /** Set by a read whose answer the read cache may keep (readcache/ReadCache.ts). */
  cacheable: Cacheable | undefined = undefined
}

const currentRequestState = FiberRef.unsafeMake<RequestState | undefined>(undefined)

/** The state of the request being handled; outside one (a handler run alone in a test), a fresh one nobody reads. */
export const requestState: Effect.Effect<RequestState> = Effect.map(
  FiberRef.get(currentRequestState),
  (state) => state ?? new RequestState()
)

/**
 * Makes `state` the request state of the running fiber: the request's own, which the server forks for that
 * request alone and which ends with it, so the value is set rather than scoped (no restore to pay for).
 */
export const setRequestState = (state: RequestState): Effect.Effect<void> => FiberRef.set(currentRequestState, state)
