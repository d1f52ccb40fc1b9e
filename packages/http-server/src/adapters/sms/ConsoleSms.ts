import { SmsSender } from "@talab/core"
import { type Context, Effect, Layer } from "effect"

/**
 * An SmsSender that only logs: the operator reads one-time codes from the console.
 * Never fails.
 */
export const make = (): Effect.Effect<Context.Tag.Service<SmsSender>> =>
  Effect.succeed(
    SmsSender.of({
      send: (sms) => Effect.logInfo("SMS sent").pipe(Effect.annotateLogs({ to: sms.to, body: sms.body }))
    })
  )

/** Layer of {@link make}. */
export const layer = (): Layer.Layer<SmsSender> => Layer.effect(SmsSender, make())
