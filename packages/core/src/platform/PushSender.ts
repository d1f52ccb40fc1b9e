import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Platform } from "../shared/Values.js"

/**
 * What a push notification is about: a new offer (to the buyer), an accepted offer (to both parties), a message
 * (to an offline recipient), a prompt to rate a completed deal, a request about to expire or expired (to its
 * buyer), a new request matching a seller's alert rules, one by one or summed up after quiet hours, and a
 * bargaining move: a counter (to the seller) or a revised offer (to the buyer).
 */
export const PushType = Schema.Literal(
  "offer_created",
  "offer_accepted",
  "message",
  "rating_prompt",
  "request_match",
  "request_match_summary",
  "request_expiring",
  "request_expired",
  "offer_countered",
  "offer_revised",
  "seller_profile_rejected"
)
export type PushType = typeof PushType.Type

/** One notification to one device. */
export interface Push {
  readonly userId: string
  readonly platform: Platform
  readonly pushToken: string
  readonly type: PushType
  readonly title: string
  readonly body: string
  readonly data: Readonly<Record<string, string>>
}

/** What the provider said about one push. */
export type PushOutcome = Data.TaggedEnum<{
  /** Accepted by the provider. */
  Delivered: {}
  /** The provider no longer knows this device token: delete it. */
  Unregistered: {}
  /** A transient failure (rate limit, 5xx, network): try again later. */
  Retryable: { readonly reason: string; readonly retryAfterMs?: number }
  /** A permanent failure for this push (bad payload, auth): do not retry. */
  Failed: { readonly reason: string }
}>
export const PushOutcome = Data.taggedEnum<PushOutcome>()

/** Port: delivers push notifications. Adapters: log, FCM, APNs, in-memory (testkit). */
export class PushSender extends Context.Tag("@talab/core/PushSender")<
  PushSender,
  { readonly send: (push: Push) => Effect.Effect<PushOutcome> }
>() {}
