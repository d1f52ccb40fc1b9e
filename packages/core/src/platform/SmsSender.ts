import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** One text message to a phone number. `code` is the one-time code it carries, when it carries one. */
export interface Sms {
  readonly to: string
  readonly body: string
  readonly code?: string
}

/**
 * The SMS provider did not take the message: `reason` says why, with the provider's HTTP `status` and own error code
 * when it gave them.
 */
export class SmsDeliveryFailed extends Data.TaggedError("SmsDeliveryFailed")<{
  readonly reason: string
  readonly status?: number
  readonly providerCode?: string | number
}> {}

/** Port: sends SMS. Adapters: console (logs), Twilio, in-memory (testkit). */
export class SmsSender extends Context.Tag("@talab/core/SmsSender")<
  SmsSender,
  { readonly send: (sms: Sms) => Effect.Effect<void, SmsDeliveryFailed> }
>() {}
