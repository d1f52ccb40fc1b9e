import { SmsSender } from "@talab/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { maskPhone } from "../LogMasks.js"

export interface ConsoleSmsOptions {
  /**
   * Whether the line shows the message (and so the one-time code). True in development, where the console is
   * how one signs in; false in production (allowed only with ALLOW_CONSOLE_PROVIDERS=true), where codes stay
   * out of the log and SMS_OUTBOX_FILE is the place to read them.
   */
  readonly showText: boolean
}

/**
 * An SmsSender that sends nothing and says so in one warning line, the number masked. Never fails.
 */
const make = (options: ConsoleSmsOptions): Effect.Effect<Context.Tag.Service<SmsSender>> =>
  Effect.succeed(
    SmsSender.of({
      send: (sms) =>
        Effect.logWarning("SMS not sent (SMS_PROVIDER=console)").pipe(
          Effect.annotateLogs(options.showText ? { to: maskPhone(sms.to), text: sms.body } : { to: maskPhone(sms.to) })
        )
    })
  )

/** Layer of {@link make}. */
export const layer = (options: ConsoleSmsOptions): Layer.Layer<SmsSender> => Layer.effect(SmsSender, make(options))
